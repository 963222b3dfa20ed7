-- Edits (issue 15): an edit is a thumbnail of kind 'edit' that records the
-- operation and its parameters. Free edits (color-enhance, upscale, filter,
-- background-remove) are paid by no reservation, so reservation_id becomes
-- optional for them only; an edit keeps its source's shape, which need not
-- be 16:9 or 9:16, so aspect_ratio is NULL for such a picture.
ALTER TABLE thumbnails ALTER COLUMN reservation_id DROP NOT NULL;
ALTER TABLE thumbnails ADD CONSTRAINT thumbnails_paid_unless_free_edit
    CHECK (reservation_id IS NOT NULL OR kind = 'edit');
ALTER TABLE thumbnails ALTER COLUMN aspect_ratio DROP NOT NULL;
ALTER TABLE thumbnails ADD COLUMN operation text;
ALTER TABLE thumbnails ADD COLUMN params jsonb NOT NULL DEFAULT '{}';
-- parentId of an edit: the caller's thumbnail whose picture is the source.
CREATE INDEX thumbnails_org_image ON thumbnails (org_id, image_key);

-- Critiques are paid (1 credit) and kept: a retried request (same
-- Idempotency-Key) answers the stored critique instead of paying again,
-- and the recovery pass finds the work of a reservation by it.
CREATE TABLE critiques (
    id             uuid        PRIMARY KEY,
    org_id         uuid        NOT NULL,
    image_url      text        NOT NULL,
    niche          text        NOT NULL,
    engine         text        NOT NULL,
    result         jsonb       NOT NULL,
    reservation_id uuid        NOT NULL UNIQUE,
    created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX critiques_org_newest ON critiques (org_id, created_at DESC, id DESC);
