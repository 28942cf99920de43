-- Reports of accounts (and some of their statuses) to the moderators: by local members, or received from other
-- servers as Flag activities (uri set).
CREATE TABLE reports (
  id                bigint PRIMARY KEY DEFAULT timestamp_id(now()),
  account_id        bigint NOT NULL REFERENCES accounts ON DELETE CASCADE,
  target_account_id bigint NOT NULL REFERENCES accounts ON DELETE CASCADE,
  status_ids        bigint[] NOT NULL DEFAULT '{}',
  comment           text NOT NULL DEFAULT '',
  category          text NOT NULL DEFAULT 'other',
  forwarded         boolean NOT NULL DEFAULT false,
  uri               text UNIQUE,
  created_at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX reports_target ON reports (target_account_id, id DESC);
