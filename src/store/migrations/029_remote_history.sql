-- Remote history (spec: What the service does §4, Remote history state, Limits): older public and unlisted posts of
-- a remote actor, fetched from its outbox when a member opens its profile.

-- A post imported from an outbox and not (yet) received through delivery: readable by id, in its account's
-- statuses and in threads, never in a feed, streaming or search. Received through the inbox, it is promoted (false).
ALTER TABLE statuses ADD COLUMN history boolean NOT NULL DEFAULT false;
-- Retention sweeps walk history posts by age.
CREATE INDEX statuses_history ON statuses (created_at) WHERE history;

-- One row per remote actor whose history was ever asked for: its state, where the walk stands, its counts, and the
-- job's lease while a node runs it.
CREATE TABLE remote_histories (
  account_id      bigint PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
  -- host[:port] of the outbox (lower case): the politeness limits hold per origin.
  origin          text NOT NULL,
  state           text NOT NULL DEFAULT 'idle'
                  CHECK (state IN ('idle', 'queued', 'fetching', 'partial', 'complete', 'unsupported', 'backoff')),
  reason          text,
  -- The next collection document to fetch (the outbox itself before the first job; then a page URL).
  cursor          text,
  -- Collection documents the queued job may still fetch: 2 for the initial fetch, 1 for each Load older.
  pages_budget    smallint NOT NULL DEFAULT 0,
  items_examined  integer NOT NULL DEFAULT 0,
  items_imported  integer NOT NULL DEFAULT 0,
  pages_fetched   integer NOT NULL DEFAULT 0,
  last_fetched_at timestamptz,
  -- Consecutive failed attempts (0 after a success), and when a job in backoff runs again by itself.
  attempts        integer NOT NULL DEFAULT 0,
  retry_at        timestamptz,
  queued_at       timestamptz,
  lease_owner     text,
  lease_until     timestamptz,
  -- Viewing the profile refreshes the retention clock of its history posts.
  viewed_at       timestamptz NOT NULL DEFAULT now(),
  created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX remote_histories_active ON remote_histories (origin, queued_at) WHERE state IN ('queued', 'fetching', 'backoff');

-- Per origin: a backoff that holds every job of that origin (a 429 says the host, not the actor, is busy).
CREATE TABLE history_origins (
  origin        text PRIMARY KEY,
  backoff_until timestamptz,
  attempts      integer NOT NULL DEFAULT 0,
  reason        text
);
