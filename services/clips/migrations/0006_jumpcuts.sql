-- What a render's jump cuts (removeSilences, removeFillers) took out of
-- the clip, seconds; 0 for renders without them and for older rows.

ALTER TABLE renders ADD COLUMN seconds_removed double precision NOT NULL DEFAULT 0;
