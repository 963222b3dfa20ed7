-- How a render's captions were translated (options.captionLanguage):
-- {"engine": "apertium" | "provider", "quality": "draft" | "fluent",
-- "language": "es"}; NULL for captions in the spoken language.
ALTER TABLE renders ADD COLUMN caption_translation jsonb;
