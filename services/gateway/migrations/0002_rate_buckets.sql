-- The rate-limit buckets all gateway replicas share, one per key. Losing
-- them in a crash only refills every bucket, so the table skips the WAL;
-- with no index but the key, every take is a HOT update.
CREATE UNLOGGED TABLE rate_buckets (
    key     text             PRIMARY KEY,
    tokens  double precision NOT NULL,
    at      timestamptz      NOT NULL,
    rate    double precision NOT NULL,
    burst   integer          NOT NULL,
    granted integer          NOT NULL
) WITH (fillfactor = 50);
