-- Which process made each reservation (hookline.dev/pkg/contracts/credits, owner.go):
-- the number of the advisory lock that process holds for as long as it
-- lives. A reservation whose owner holds no lock any more has no live
-- request, so the recovery pass settles it at once instead of after its
-- grace. NULL: made before owners were recorded, or by a client that
-- never started (the grace alone applies).
ALTER TABLE credit_reservations ADD COLUMN owner int;

CREATE INDEX credit_reservations_open_owner ON credit_reservations (owner)
    WHERE state IN ('reserving', 'reserved');
