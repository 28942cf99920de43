-- Video and audio uploads are processed after the upload answers (issue 38), as Mastodon does: the row is made
-- 'queued' with the file as sent (source_file_name), and the media processor (actors/media-processor.ts) claims it
-- under a lease (lease_owner, lease_until: a node killed mid-transcode stops renewing it, and another node or the
-- restarted one takes the job over once it runs out), probes and transcodes it with ffmpeg, and marks it 'done' with
-- the served file, its poster frame (the preview), Mastodon's meta and the poster's blurhash, or 'failed' with the
-- reason. Images and remote media are 'done' from the start (the default). `attempts` bounds how often a file that
-- kills its processor is tried.
ALTER TABLE media_attachments
  ADD COLUMN processing text DEFAULT 'done' NOT NULL,
  ADD COLUMN source_file_name text,
  ADD COLUMN meta jsonb,
  ADD COLUMN processing_error text,
  ADD COLUMN attempts integer DEFAULT 0 NOT NULL,
  ADD COLUMN lease_owner text,
  ADD COLUMN lease_until timestamp with time zone,
  ADD CONSTRAINT media_attachments_processing_check CHECK (processing IN ('queued', 'running', 'done', 'failed'));

-- The poster is the attachment's preview, as an image's small copy is: the same columns as migration 074 (issue 38's
-- image previews) adds, made here only if it has not (both branches of the issue land on one schema).
ALTER TABLE media_attachments
  ADD COLUMN IF NOT EXISTS preview_file_name text,
  ADD COLUMN IF NOT EXISTS small_width integer,
  ADD COLUMN IF NOT EXISTS small_height integer,
  ADD COLUMN IF NOT EXISTS blurhash text;
CREATE INDEX IF NOT EXISTS media_attachments_preview_file_name ON media_attachments (preview_file_name) WHERE preview_file_name IS NOT NULL;

CREATE INDEX media_attachments_processing_idx ON media_attachments (id) WHERE processing IN ('queued', 'running');
