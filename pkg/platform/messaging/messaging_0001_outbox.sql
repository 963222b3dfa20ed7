-- Transactional outbox and idempotency inbox of hookline.dev/pkg/platform/messaging.
-- Applied by every service into its own schema before its own migrations:
--   pgkit.Migrate(ctx, pool, messaging.Migrations)

-- One row per event not yet published. A row is written in the same
-- transaction as the state change it announces and deleted by the relay once
-- JetStream has acknowledged it.
--
-- txid orders and gates publication: the relay publishes only rows whose
-- transaction is below the xmin of its snapshot (no longer in flight), so a
-- transaction that started earlier but commits later can never have its
-- events overtaken or skipped. seq orders the events of one transaction.
CREATE TABLE outbox (
    id          uuid        PRIMARY KEY,
    txid        xid8        NOT NULL DEFAULT pg_current_xact_id(),
    seq         bigserial   NOT NULL,
    subject     text        NOT NULL,
    payload     jsonb       NOT NULL,
    traceparent text,
    created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX outbox_txid_seq ON outbox (txid, seq);

-- One row per (consumer, event) whose effect has been committed. A handler
-- inserts it in the transaction of its effect, so a redelivered event finds
-- the row and does nothing.
CREATE TABLE inbox (
    consumer     text        NOT NULL,
    event_id     text        NOT NULL,
    processed_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (consumer, event_id)
);

CREATE INDEX inbox_processed_at ON inbox (processed_at);

-- Wake the relay of this schema (and only this schema: several services may
-- share one database) once per inserting statement. The channel is named
-- after the table's schema rather than the session's search_path, so rows
-- inserted with a qualified name still wake the right relay. Channel names
-- are identifiers, hence the cut at 63 bytes (the relay computes the same).
CREATE FUNCTION outbox_notify() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify(left('outbox_' || TG_TABLE_SCHEMA, 63), '');
    RETURN NULL;
END
$$;

CREATE TRIGGER outbox_notify
    AFTER INSERT ON outbox
    FOR EACH STATEMENT EXECUTE FUNCTION outbox_notify();
