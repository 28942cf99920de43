-- Earlier versions of edited statuses (Mastodon's status edit history). The first edit also keeps the original.
CREATE TABLE status_edits (
  id           bigint PRIMARY KEY DEFAULT timestamp_id(now()),
  status_id    bigint NOT NULL REFERENCES statuses ON DELETE CASCADE,
  content      text NOT NULL,
  spoiler_text text NOT NULL DEFAULT '',
  sensitive    boolean NOT NULL DEFAULT false,
  created_at   timestamptz NOT NULL
);
CREATE INDEX status_edits_status ON status_edits (status_id, id);
