-- Clips: projects and their prepared sources. Every row belongs to one
-- organization and every query filters by org_id.

CREATE TABLE projects (
    id             uuid        PRIMARY KEY,
    org_id         uuid        NOT NULL,
    source_url     text        NOT NULL,
    -- The video across projects: "site:<id>" or "url:<address>".
    source_key     text        NOT NULL,
    video_title    text        NOT NULL,
    format         text        NOT NULL CHECK (format IN ('portrait', 'landscape')),
    download_status text       NOT NULL CHECK (download_status IN ('downloading', 'ready', 'failed')),
    step           text        NOT NULL,
    download_error text,
    duration       double precision NOT NULL DEFAULT 0,
    -- Where the clips' words came from: captions, recognition, or '' (none yet).
    transcript     text        NOT NULL DEFAULT '',
    analysis       jsonb       NOT NULL,
    clips          jsonb       NOT NULL,
    -- Captions fetched at creation, kept for preparation (none: '[]').
    captions       jsonb       NOT NULL DEFAULT '[]',
    -- Preparation attempts started; bounded by the worker.
    attempts       int         NOT NULL DEFAULT 0,
    last_error     text,
    created_at     timestamptz NOT NULL,
    updated_at     timestamptz NOT NULL,
    ready_at       timestamptz,
    -- ready and failed are final and carry what they need.
    CHECK (download_status <> 'failed' OR download_error IS NOT NULL),
    CHECK (download_status <> 'ready' OR ready_at IS NOT NULL)
);
-- Lists are newest first with the id as a stable tiebreak.
CREATE INDEX projects_org_newest ON projects (org_id, created_at DESC, id DESC);

-- A source prepared once per organization: the stored media (for renders),
-- the transcript with word timings and the measured signals. A second
-- project of the same video reuses it instead of downloading again.
CREATE TABLE sources (
    org_id      uuid        NOT NULL,
    source_key  text        NOT NULL,
    media_key   text        NOT NULL,
    duration    double precision NOT NULL,
    width       int         NOT NULL,
    height      int         NOT NULL,
    -- captions or recognition
    transcript_origin text  NOT NULL,
    -- [{start, end, text, words: [{start, end, text}]}]
    segments    jsonb       NOT NULL,
    -- {step, energy, peaks, scenes}
    signals     jsonb       NOT NULL,
    prepared_at timestamptz NOT NULL,
    PRIMARY KEY (org_id, source_key)
);
