-- The music library the operator fills (POST /admin/v1/music-tracks):
-- tracks mixed under speech when a render asks for music, picked by the
-- clip's mood.

CREATE TABLE music_tracks (
    id         uuid        PRIMARY KEY,
    name       text        NOT NULL,
    moods      text[]      NOT NULL,
    object_key text        NOT NULL,
    duration   double precision NOT NULL,
    source_url text        NOT NULL,
    created_at timestamptz NOT NULL
);
CREATE INDEX music_tracks_newest ON music_tracks (created_at DESC, id DESC);
