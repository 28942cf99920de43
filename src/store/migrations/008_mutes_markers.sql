-- Mutes (an account's posts and, optionally, notifications kept out of the member's view, possibly until a time)
-- and reading positions (markers) per timeline.
CREATE TABLE mutes (
  id                 bigint PRIMARY KEY DEFAULT timestamp_id(now()),
  account_id         bigint NOT NULL REFERENCES accounts ON DELETE CASCADE,
  target_account_id  bigint NOT NULL REFERENCES accounts ON DELETE CASCADE,
  hide_notifications boolean NOT NULL DEFAULT true,
  expires_at         timestamptz,
  created_at         timestamptz NOT NULL DEFAULT now(),
  UNIQUE (account_id, target_account_id)
);

CREATE TABLE markers (
  account_id   bigint NOT NULL REFERENCES accounts ON DELETE CASCADE,
  timeline     text NOT NULL,
  last_read_id text NOT NULL,
  version      integer NOT NULL DEFAULT 1,
  updated_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, timeline)
);
