-- Interactions with statuses: boosts (a status row pointing at the boosted one, as Mastodon models them),
-- favourites (with the Like's id for remote ones), bookmarks and pins.
ALTER TABLE statuses ADD COLUMN reblog_of_id bigint REFERENCES statuses ON DELETE CASCADE;
CREATE UNIQUE INDEX statuses_one_reblog ON statuses (account_id, reblog_of_id) WHERE reblog_of_id IS NOT NULL AND deleted_at IS NULL;
CREATE INDEX statuses_reblogs ON statuses (reblog_of_id, id DESC) WHERE reblog_of_id IS NOT NULL AND deleted_at IS NULL;

CREATE TABLE favourites (
  id         bigint PRIMARY KEY DEFAULT timestamp_id(now()),
  account_id bigint NOT NULL REFERENCES accounts ON DELETE CASCADE,
  status_id  bigint NOT NULL REFERENCES statuses ON DELETE CASCADE,
  uri        text,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (account_id, status_id)
);
CREATE INDEX favourites_status ON favourites (status_id, id DESC);
CREATE UNIQUE INDEX favourites_uri ON favourites (uri) WHERE uri IS NOT NULL;

CREATE TABLE bookmarks (
  id         bigint PRIMARY KEY DEFAULT timestamp_id(now()),
  account_id bigint NOT NULL REFERENCES accounts ON DELETE CASCADE,
  status_id  bigint NOT NULL REFERENCES statuses ON DELETE CASCADE,
  UNIQUE (account_id, status_id)
);

CREATE TABLE pins (
  id         bigint PRIMARY KEY DEFAULT timestamp_id(now()),
  account_id bigint NOT NULL REFERENCES accounts ON DELETE CASCADE,
  status_id  bigint NOT NULL REFERENCES statuses ON DELETE CASCADE,
  UNIQUE (account_id, status_id)
);
