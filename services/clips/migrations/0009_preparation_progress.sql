-- How far a project's preparation is, 0 to 100 (preparationProgress):
-- the step's share of the whole, moving within transcription as speech
-- is recognised. Projects prepared before it are done.

ALTER TABLE projects ADD COLUMN progress int NOT NULL DEFAULT 0 CHECK (progress BETWEEN 0 AND 100);
UPDATE projects SET progress = 100 WHERE download_status = 'ready';
