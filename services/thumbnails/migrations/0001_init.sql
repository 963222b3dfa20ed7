-- Thumbnails: the generated pictures, the templates they can be remixed
-- from, and a read model of the assets records a request may name (kept
-- from assets' events, so a request never calls assets). Every row of a
-- tenant carries org_id and every query filters by it.

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
    -- The reservation that paid for the thumbnail: recovery looks up the
    -- result of a reservation whose settlement a crash interrupted.
    reservation_id uuid        NOT NULL UNIQUE,
    created_at     timestamptz NOT NULL
);
-- Lists are newest first with the id as a stable tiebreak.
CREATE INDEX thumbnails_org_newest ON thumbnails (org_id, created_at DESC, id DESC);
CREATE INDEX thumbnails_org_kind ON thumbnails (org_id, kind, created_at DESC, id DESC);
CREATE INDEX thumbnails_org_collection ON thumbnails (org_id, collection_id, created_at DESC, id DESC)
    WHERE collection_id IS NOT NULL;

-- Templates are global (not per organization) and seeded by migration;
-- preview images are rendered by the service when missing or outdated.
CREATE TABLE templates (
    id              uuid PRIMARY KEY,
    name            text NOT NULL,
    category        text NOT NULL,
    description     text NOT NULL,
    aspect_ratio    text NOT NULL,
    layout          jsonb NOT NULL,
    position        int  NOT NULL,
    preview_key     text,
    preview_version int  NOT NULL DEFAULT 0
);
CREATE INDEX templates_order ON templates (position, id);
CREATE INDEX templates_category ON templates (category, position, id);

-- The read model of assets' records. A row is the latest state seen;
-- version is the occurredAt of the event that wrote it, so an older event
-- delivered late never overwrites a newer one, and a deletion leaves a
-- tombstone (deleted) for the same reason.
CREATE TABLE asset_records (
    org_id  uuid        NOT NULL,
    kind    text        NOT NULL CHECK (kind IN ('style', 'brand', 'face', 'collection')),
    id      uuid        NOT NULL,
    version timestamptz NOT NULL,
    deleted boolean     NOT NULL DEFAULT false,
    data    jsonb       NOT NULL,
    PRIMARY KEY (kind, id)
);
