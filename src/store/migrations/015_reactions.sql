-- Emoji reactions to statuses (Pleroma/Akkoma's API, Misskey's EmojiReact): one row per account, status and emoji.
CREATE TABLE status_reactions (
  id         bigint PRIMARY KEY DEFAULT timestamp_id(now()),
  account_id bigint NOT NULL REFERENCES accounts ON DELETE CASCADE,
  status_id  bigint NOT NULL REFERENCES statuses ON DELETE CASCADE,
  emoji      text NOT NULL,
  uri        text UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (account_id, status_id, emoji)
);
CREATE INDEX status_reactions_status ON status_reactions (status_id, emoji);
