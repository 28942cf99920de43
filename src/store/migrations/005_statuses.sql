-- Statuses (posts) of local and remote accounts, their mentions and hashtags, and the Idempotency-Key record of
-- local posts. visibility: 0 public, 1 unlisted, 2 private (followers only), 3 direct (mentioned accounts only).
CREATE TABLE statuses (
  id                     bigint PRIMARY KEY DEFAULT timestamp_id(now()),
  account_id             bigint NOT NULL REFERENCES accounts ON DELETE CASCADE,
  uri                    text,                 -- remote: the Note's id; local: NULL (derived from BASE_URL)
  url                    text,                 -- remote: the page a person would open
  text                   text NOT NULL DEFAULT '',  -- local: the source text as typed
  content                text NOT NULL,        -- safe HTML (rendered locally, or sanitised from the remote Note)
  spoiler_text           text NOT NULL DEFAULT '',
  visibility             smallint NOT NULL CHECK (visibility BETWEEN 0 AND 3),
  sensitive              boolean NOT NULL DEFAULT false,
  language               text,
  in_reply_to_id         bigint REFERENCES statuses ON DELETE SET NULL,
  in_reply_to_account_id bigint REFERENCES accounts ON DELETE SET NULL,
  in_reply_to_uri        text,
  application_id         bigint,
  local                  boolean NOT NULL,
  created_at             timestamptz NOT NULL DEFAULT now(),
  edited_at              timestamptz,
  deleted_at             timestamptz
);
CREATE UNIQUE INDEX statuses_uri ON statuses (uri) WHERE uri IS NOT NULL;
CREATE INDEX statuses_account ON statuses (account_id, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX statuses_public ON statuses (id DESC) WHERE deleted_at IS NULL AND visibility = 0;
CREATE INDEX statuses_replies ON statuses (in_reply_to_id) WHERE in_reply_to_id IS NOT NULL;

CREATE TABLE status_mentions (
  status_id  bigint NOT NULL REFERENCES statuses ON DELETE CASCADE,
  account_id bigint NOT NULL REFERENCES accounts ON DELETE CASCADE,
  PRIMARY KEY (status_id, account_id)
);
CREATE INDEX status_mentions_account ON status_mentions (account_id, status_id DESC);

-- key: the name case-folded by the application (the database's C locale folds only ASCII).
CREATE TABLE tags (
  id   bigint PRIMARY KEY DEFAULT timestamp_id(now()),
  name text NOT NULL,
  key  text NOT NULL UNIQUE
);

CREATE TABLE status_tags (
  status_id bigint NOT NULL REFERENCES statuses ON DELETE CASCADE,
  tag_id    bigint NOT NULL REFERENCES tags ON DELETE CASCADE,
  PRIMARY KEY (status_id, tag_id)
);
CREATE INDEX status_tags_tag ON status_tags (tag_id, status_id DESC);

-- A client retrying POST /api/v1/statuses with the same Idempotency-Key gets the same status (kept a day).
CREATE TABLE status_idempotency (
  account_id bigint NOT NULL REFERENCES accounts ON DELETE CASCADE,
  key        text NOT NULL,
  status_id  bigint NOT NULL REFERENCES statuses ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, key)
);
