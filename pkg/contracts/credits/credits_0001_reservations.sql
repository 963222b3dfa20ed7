-- Reservation journal of hookline.dev/pkg/contracts/credits. Applied by every service
-- that runs paid operations into its own schema, after the messaging tables:
--   platform.Options{SharedMigrations: []fs.FS{credits.Migrations}}

-- One row per reservation the service asked billing for. The row is written
-- before the reserve call and closed in the transaction that records the
-- outcome, so a reservation left open by a crash is found by the recovery
-- pass and settled or failed (ARCHITECTURE §3).
--
-- base_id is the reservation id derived from (org, operation, key, item);
-- generation counts the reservations made under it. A key whose last
-- reservation is terminal gets the next generation, because billing treats
-- a known id as already reserved and would otherwise run the work for free.
-- Rows are therefore kept: forgetting one would let its id be reused.
CREATE TABLE credit_reservations (
    reservation_id uuid        PRIMARY KEY,
    base_id        uuid        NOT NULL,
    generation     int         NOT NULL,
    org_id         uuid        NOT NULL,
    operation      text        NOT NULL,
    item           int         NOT NULL,
    credits        bigint      NOT NULL CHECK (credits > 0),
    resource_type  text        NOT NULL,
    resource_id    text        NOT NULL,
    -- reserving: the call to billing may be under way or its answer lost;
    -- reserved: billing holds the credits and the work may run;
    -- refused: billing held nothing (refusal, no responder);
    -- completed / failed: the terminal event is in the outbox.
    state          text        NOT NULL CHECK (state IN ('reserving', 'reserved', 'refused', 'completed', 'failed')),
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now(),
    UNIQUE (base_id, generation)
);

CREATE INDEX credit_reservations_open ON credit_reservations (updated_at)
    WHERE state IN ('reserving', 'reserved');
