-- The b-roll library the operator fills (POST /admin/v1/broll): short
-- footage tagged with keywords, cut in where a clip speaks one.

CREATE TABLE broll_clips (
    id         uuid        PRIMARY KEY,
    name       text        NOT NULL,
    keywords   text[]      NOT NULL,
    object_key text        NOT NULL,
    duration   double precision NOT NULL,
    source_url text        NOT NULL,
    created_at timestamptz NOT NULL
);
CREATE INDEX broll_clips_newest ON broll_clips (created_at DESC, id DESC);
