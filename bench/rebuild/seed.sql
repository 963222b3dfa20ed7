-- 1,000,000 ledger events for measuring `billing rebuild`: 10,000 accounts
-- of 100 events each (opened, a 1,000-credit subscription grant, then 49
-- reservations of 1 credit, two in three committed and the rest refunded).
-- Run inside a billing schema (bench/rebuild/run.sh creates one); the JSON
-- is the stored form of services/billing/internal/postgres/codec.go.
SET TIME ZONE 'UTC';
INSERT INTO events (stream, version, type, data)
SELECT 'account-' || md5('bench-account-' || a)::uuid, v,
    CASE
        WHEN v = 1 THEN 'AccountOpened'
        WHEN v = 2 THEN 'CreditsGranted'
        WHEN v % 2 = 1 THEN 'CreditsReserved'
        WHEN (v / 2) % 3 = 0 THEN 'ReservationRefunded'
        ELSE 'ReservationCommitted'
    END,
    CASE
        WHEN v = 1 THEN jsonb_build_object('tier', 'pro', 'billingCycle', 'monthly', 'at', t)
        WHEN v = 2 THEN jsonb_build_object('grantId', md5('bench-grant-' || a)::uuid, 'bucket', 'subscription',
            'credits', 1000, 'reason', 'subscription: pro', 'at', t)
        WHEN v % 2 = 1 THEN jsonb_build_object('reservationId', 'bench-' || a || '-' || v, 'credits', 1, 'subscription', 1,
            'operation', 'thumbnail.generate', 'resourceType', 'thumbnail', 'resourceId', 'bench-' || a || '-' || v,
            'at', t, 'expiresAt', t + interval '10 minutes')
        WHEN (v / 2) % 3 = 0 THEN jsonb_build_object('reservationId', 'bench-' || a || '-' || (v - 1), 'subscription', 1, 'at', t)
        ELSE jsonb_build_object('reservationId', 'bench-' || a || '-' || (v - 1), 'at', t)
    END
FROM generate_series(1, 10000) AS a,
     generate_series(1, 100) AS v,
     LATERAL (SELECT timestamptz '2026-11-23 10:00:00+00' + (a * 100 + v) * interval '1 millisecond' AS t) AS ts;
ANALYZE events;
