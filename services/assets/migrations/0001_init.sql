-- Assets: faces, styles, brands, collections, and the projection of the
-- thumbnails service's thumbnails that collections are made of. Every
-- record belongs to one organization and every query filters by org_id.
-- Images live in the bucket; rows keep their object keys, so public URLs
-- follow HOOKLINE_S3_PUBLIC_URL if it ever changes.

CREATE TABLE faces (
    id            uuid        PRIMARY KEY,
    org_id        uuid        NOT NULL,
    name          text        NOT NULL,
    image_keys    text[]      NOT NULL,
    thumbnail_key text        NOT NULL,
    created_at    timestamptz NOT NULL,
    updated_at    timestamptz NOT NULL
);
-- Lists are newest first with the id as a stable tiebreak.
CREATE INDEX faces_org_newest ON faces (org_id, created_at DESC, id DESC);

CREATE TABLE styles (
    id             uuid        PRIMARY KEY,
    org_id         uuid        NOT NULL,
    name           text        NOT NULL,
    description    text        NOT NULL DEFAULT '',
    reference_keys text[]      NOT NULL,
    profile        jsonb       NOT NULL,
    created_at     timestamptz NOT NULL,
    updated_at     timestamptz NOT NULL
);
CREATE INDEX styles_org_newest ON styles (org_id, created_at DESC, id DESC);

CREATE TABLE brands (
    id         uuid        PRIMARY KEY,
    org_id     uuid        NOT NULL,
    name       text        NOT NULL,
    colors     text[]      NOT NULL,
    logo_key   text        NOT NULL DEFAULT '',
    fonts      text[]      NOT NULL DEFAULT '{}',
    domain     text        NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
);
CREATE INDEX brands_org_newest ON brands (org_id, created_at DESC, id DESC);

CREATE TABLE collections (
    id          uuid        PRIMARY KEY,
    org_id      uuid        NOT NULL,
    name        text        NOT NULL,
    description text        NOT NULL DEFAULT '',
    created_at  timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL
);
CREATE INDEX collections_org_newest ON collections (org_id, created_at DESC, id DESC);

-- Projection of thumbnails.thumbnail.created.v1 / .deleted.v1. A deleted
-- event that arrives before its created event leaves a tombstone
-- (deleted = true) so the late created event cannot bring it back.
CREATE TABLE thumbnails (
    id         uuid        PRIMARY KEY,
    org_id     uuid        NOT NULL,
    image_url  text        NOT NULL DEFAULT '',
    prompt     text        NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL,
    deleted    boolean     NOT NULL DEFAULT false
);
CREATE INDEX thumbnails_org ON thumbnails (org_id, id);

CREATE TABLE collection_thumbnails (
    collection_id uuid        NOT NULL REFERENCES collections (id) ON DELETE CASCADE,
    thumbnail_id  uuid        NOT NULL REFERENCES thumbnails (id) ON DELETE CASCADE,
    added_at      timestamptz NOT NULL,
    PRIMARY KEY (collection_id, thumbnail_id)
);
CREATE INDEX collection_thumbnails_newest ON collection_thumbnails (collection_id, added_at DESC, thumbnail_id DESC);
CREATE INDEX collection_thumbnails_thumbnail ON collection_thumbnails (thumbnail_id);
