-- Render jobs: one clip of a ready project made into an MP4, each paid for
-- by its own credit reservation (credits journal, pkg/contracts/credits).

CREATE TABLE renders (
    id             uuid        PRIMARY KEY,
    org_id         uuid        NOT NULL,
    project_id     uuid        NOT NULL REFERENCES projects (id),
    clip_id        text        NOT NULL,
    format         text        NOT NULL CHECK (format IN ('portrait', 'landscape')),
    subtitle_style text        NOT NULL,
    brand_id       uuid,
    options        jsonb       NOT NULL,
    status         text        NOT NULL CHECK (status IN ('pending', 'rendering', 'completed', 'failed')),
    progress       int         NOT NULL DEFAULT 0 CHECK (progress BETWEEN 0 AND 100),
    current_step   text        NOT NULL,
    error          text,
    notes          jsonb       NOT NULL DEFAULT '[]',
    credits        int         NOT NULL,
    -- The reservation that pays for the render: the recovery pass finds
    -- the render of an unsettled reservation by it.
    reservation_id uuid        NOT NULL UNIQUE,
    -- Objects of a completed render (deterministic keys: a redone render
    -- overwrites).
    output_key     text,
    captions_key   text,
    crop_key       text,
    attempts       int         NOT NULL DEFAULT 0,
    created_at     timestamptz NOT NULL,
    updated_at     timestamptz NOT NULL,
    completed_at   timestamptz,
    CHECK (status <> 'failed' OR error IS NOT NULL),
    CHECK (status <> 'completed' OR (output_key IS NOT NULL AND completed_at IS NOT NULL AND progress = 100))
);
CREATE INDEX renders_project_newest ON renders (project_id, created_at DESC, id DESC);
CREATE INDEX renders_org ON renders (org_id);
