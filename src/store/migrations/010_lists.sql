-- A member's lists of accounts they follow, each with its own timeline.
CREATE TABLE lists (
  id             bigint PRIMARY KEY DEFAULT timestamp_id(now()),
  account_id     bigint NOT NULL REFERENCES accounts ON DELETE CASCADE,
  title          text NOT NULL,
  replies_policy text NOT NULL DEFAULT 'list' CHECK (replies_policy IN ('followed', 'list', 'none')),
  exclusive      boolean NOT NULL DEFAULT false,
  created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX lists_account ON lists (account_id, id);

CREATE TABLE list_accounts (
  list_id    bigint NOT NULL REFERENCES lists ON DELETE CASCADE,
  account_id bigint NOT NULL REFERENCES accounts ON DELETE CASCADE,
  PRIMARY KEY (list_id, account_id)
);
CREATE INDEX list_accounts_account ON list_accounts (account_id);
