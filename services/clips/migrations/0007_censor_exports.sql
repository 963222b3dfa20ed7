-- The profanity filter's words an organization adds to the built-in list
-- (PUT /clips/censor-words), and what a completed render exports beside
-- its MP4: [{"format": "srt" | "vtt" | "fcpxml" | "edl", "key": ...}],
-- [] for renders completed before exports existed.

CREATE TABLE censor_words (
    org_id     uuid        PRIMARY KEY,
    words      jsonb       NOT NULL,
    updated_at timestamptz NOT NULL
);

ALTER TABLE renders ADD COLUMN exports jsonb NOT NULL DEFAULT '[]';
