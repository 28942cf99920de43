-- An image attachment's small preview (issue 38): Mastodon's `small` style (at most 230,400 pixels), stored on the
-- media storage beside the original under its own random name, with its real size and the blurhash computed over it.
-- NULL for rows from before, for video and audio, and for remote files not yet previewed: the entity then gives the
-- original as the preview, as before.
ALTER TABLE media_attachments
  ADD COLUMN preview_file_name text,
  ADD COLUMN small_width integer,
  ADD COLUMN small_height integer,
  ADD COLUMN blurhash text;

-- /system/media/:name serves a preview by its name as it serves the original by file_name.
CREATE INDEX media_attachments_preview_file_name ON media_attachments (preview_file_name) WHERE preview_file_name IS NOT NULL;
