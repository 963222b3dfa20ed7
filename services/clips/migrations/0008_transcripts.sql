-- A project's edits of its source's transcript (GET/PATCH
-- /clips/projects/{id}/transcript): word ids are indexes into the
-- source's words in order (sources.segments), which never change once
-- prepared. A project without a row has version 1 and no edits.
CREATE TABLE transcript_edits (
    project_id  uuid        PRIMARY KEY REFERENCES projects (id) ON DELETE CASCADE,
    org_id      uuid        NOT NULL,
    -- The ETag: 1 for the unedited transcript, +1 per edit.
    version     int         NOT NULL CHECK (version >= 1),
    -- {"<word id>": "replacement text"}
    texts       jsonb       NOT NULL DEFAULT '{}',
    -- [{"from": id, "to": id}] inclusive, sorted and disjoint
    deleted     jsonb       NOT NULL DEFAULT '[]',
    -- the custom vocabulary: ["term", …]
    vocabulary  jsonb       NOT NULL DEFAULT '[]',
    updated_at  timestamptz NOT NULL
);
