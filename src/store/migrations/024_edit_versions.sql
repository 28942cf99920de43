-- Edits change attachments and polls as Mastodon's do. An attachment taken out of a post stays with it, hidden
-- (its earlier versions still show it, and a later edit may put it back), and each version records the attachments
-- it had, their descriptions then, and its poll's options (NULL: no poll).
ALTER TABLE media_attachments ADD COLUMN removed boolean NOT NULL DEFAULT false;
ALTER TABLE status_edits
  ADD COLUMN media_ids bigint[] NOT NULL DEFAULT '{}',
  ADD COLUMN media_descriptions text[] NOT NULL DEFAULT '{}',
  ADD COLUMN poll_options text[];
