-- A transaction may skip the NOTIFY when the committing process wakes its
-- own relay, which leads the schema (Relay.QueueOutbox sets
-- hookline.outbox_notify to off for the transaction, Relay.Committed wakes
-- it). Every NOTIFY takes a database-wide lock at commit and signals every
-- listening session of the database, other services' relays included.
CREATE OR REPLACE FUNCTION outbox_notify() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('hookline.outbox_notify', true) IS DISTINCT FROM 'off' THEN
        PERFORM pg_notify(left('outbox_' || TG_TABLE_SCHEMA, 63), '');
    END IF;
    RETURN NULL;
END
$$;
