-- Thumbnails: the generated pictures, the template catalogue (seeded by
-- 0002) and the read model of the assets service's records that a request
-- may name (ARCHITECTURE §4). Every thumbnail belongs to one organization
-- and every query filters by org_id. Images live in the bucket; rows keep
-- their object keys, so public URLs follow HOOKLINE_S3_PUBLIC_URL.

CREATE TABLE thumbnails (
    id             uuid        PRIMARY KEY,
    org_id         uuid        NOT NULL,
    kind           text        NOT NULL CHECK (kind IN ('generated', 'variation', 'remix', 'optimized', 'edit')),
    prompt         text        NOT NULL,
    parent_id      uuid,
    aspect_ratio   text        NOT NULL CHECK (aspect_ratio IN ('16:9', '9:16')),
    width          int         NOT NULL,
    height         int         NOT NULL,
    style_id       uuid,
    brand_id       uuid,
    face_ids       uuid[]      NOT NULL DEFAULT '{}',
    collection_id  uuid,
    template_id    uuid,
    engine         text        NOT NULL,
    image_key      text        NOT NULL,
    seed           bigint      NOT NULL,
    -- The reservation that paid for the thumbnail: the recovery pass finds
    -- the work of an unsettled reservation by it.
    reservation_id uuid        NOT NULL UNIQUE,
    created_at     timestamptz NOT NULL DEFAULT now()
);
-- Lists are newest first with the id as a stable tiebreak.
CREATE INDEX thumbnails_org_newest ON thumbnails (org_id, created_at DESC, id DESC);
CREATE INDEX thumbnails_org_kind ON thumbnails (org_id, kind, created_at DESC, id DESC);
CREATE INDEX thumbnails_org_collection ON thumbnails (org_id, collection_id, created_at DESC, id DESC)
    WHERE collection_id IS NOT NULL;

CREATE TABLE templates (
  id uuid PRIMARY KEY, name text NOT NULL, category text NOT NULL, description text NOT NULL,
  aspect_ratio text NOT NULL, layout jsonb NOT NULL, position int NOT NULL,
  preview_key text, preview_version int NOT NULL DEFAULT 0);
CREATE INDEX templates_category ON templates (category, position);

-- The read model: the assets service's styles, brands, faces and
-- collections as its events describe them, one row per record. data is the
-- payload of the last event applied (events.StyleChanged, BrandChanged,
-- FaceChanged, CollectionChanged). A deletion keeps the row as a tombstone
-- (deleted, data '{}'), and a row only moves forward in changed_at (the
-- event's occurredAt), so a late or redelivered older event never brings a
-- record back or overwrites a newer one. A row never changes organization.
CREATE TABLE asset_records (
    kind       text        NOT NULL CHECK (kind IN ('style', 'brand', 'face', 'collection')),
    id         uuid        NOT NULL,
    org_id     uuid        NOT NULL,
    data       jsonb       NOT NULL,
    deleted    boolean     NOT NULL DEFAULT false,
    changed_at timestamptz NOT NULL,
    PRIMARY KEY (kind, id)
);
