-- What an edit applied (issue 22): the operations its prompt named, in
-- the grammar's words ("vintage", "film grain"), or the operation of an
-- edit without a prompt; empty for the other kinds. Kept so that GET
-- /thumbnails/{id} and a replayed paid edit answer what the first
-- response did.
ALTER TABLE thumbnails ADD COLUMN applied text[] NOT NULL DEFAULT '{}';
