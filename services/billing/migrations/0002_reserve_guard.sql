-- Optimistic reservation groups (postgres.Store.tx) read nothing before
-- they write: the event and usage keys catch a stale account state and a
-- reused reservation id. The one precondition no key covers is a
-- settlement that arrived before its reservation; this check, run inside
-- the group's pipeline, aborts the transaction when one is waiting, and
-- the group is rerun on the path that reads and applies it.
CREATE FUNCTION assert_no_early_settlement(ids text[]) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM early_settlements WHERE reservation_id = ANY (ids)) THEN
        RAISE EXCEPTION 'a settlement is waiting for one of these reservations'
            USING ERRCODE = 'P0001';
    END IF;
END
$$;
