-- The outbox is a queue: every row is inserted and soon deleted. With the
-- default thresholds (20 % of a table that is nearly empty) autovacuum runs
-- rarely, dead rows pile up in the (txid, seq) index, and every relay scan
-- wades through them. Vacuum it after a fixed number of changes instead.
ALTER TABLE outbox SET (
    autovacuum_vacuum_scale_factor = 0,
    autovacuum_vacuum_threshold = 5000,
    autovacuum_vacuum_cost_delay = 0
);
