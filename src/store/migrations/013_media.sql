-- Media attachments: uploaded by local members (file under STOA_DATA_DIR/media), or described by a remote post
-- (remote_url; fetched through our proxy when first viewed, then kept in the same directory).
CREATE TABLE media_attachments (
  id           bigint PRIMARY KEY DEFAULT timestamp_id(now()),
  account_id   bigint NOT NULL REFERENCES accounts ON DELETE CASCADE,
  status_id    bigint REFERENCES statuses ON DELETE CASCADE,
  type         text NOT NULL CHECK (type IN ('image', 'gifv', 'video', 'audio', 'unknown')),
  content_type text NOT NULL,
  file_name    text,          -- under STOA_DATA_DIR/media; NULL for a remote file not fetched yet
  file_size    bigint,
  width        integer,
  height       integer,
  description  text,
  focus_x      real NOT NULL DEFAULT 0,
  focus_y      real NOT NULL DEFAULT 0,
  remote_url   text,
  position     smallint NOT NULL DEFAULT 0,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX media_attachments_status ON media_attachments (status_id, position) WHERE status_id IS NOT NULL;
CREATE INDEX media_attachments_account ON media_attachments (account_id, id);
