-- Federation: accounts become ActivityPub actors (local ones with their RSA key pair, remote ones with what their
-- server published), relationships between them, and the two durable queues (incoming activities, deliveries).

ALTER TABLE accounts
  ADD COLUMN uri                 text,          -- the actor id; NULL for local accounts (derived from BASE_URL)
  ADD COLUMN url                 text,          -- the profile page a person would open
  ADD COLUMN actor_type          text NOT NULL DEFAULT 'Person',
  ADD COLUMN inbox_url           text,
  ADD COLUMN shared_inbox_url    text,
  ADD COLUMN outbox_url          text,
  ADD COLUMN followers_url       text,
  ADD COLUMN following_url       text,
  ADD COLUMN featured_url        text,
  ADD COLUMN avatar_remote_url   text,
  ADD COLUMN header_remote_url   text,
  ADD COLUMN fields              jsonb NOT NULL DEFAULT '[]',
  ADD COLUMN attachment          jsonb NOT NULL DEFAULT '[]',  -- the actor's attachment array as published
  ADD COLUMN also_known_as       text[] NOT NULL DEFAULT '{}',
  ADD COLUMN moved_to_uri        text,
  ADD COLUMN public_key_id       text,
  ADD COLUMN public_key_pem      text,
  ADD COLUMN private_key_pem     text,          -- local accounts only; never leaves the server
  ADD COLUMN remote_followers_count integer,    -- what the remote server declares
  ADD COLUMN remote_following_count integer,
  ADD COLUMN remote_statuses_count  integer,
  ADD COLUMN published_at        timestamptz,
  ADD COLUMN fetched_at          timestamptz,
  ADD COLUMN deleted_at          timestamptz,   -- the remote actor was deleted (Delete or 410)
  ADD COLUMN instance_actor      boolean NOT NULL DEFAULT false;
CREATE UNIQUE INDEX accounts_uri ON accounts (uri) WHERE uri IS NOT NULL;
CREATE UNIQUE INDEX accounts_public_key_id ON accounts (public_key_id) WHERE public_key_id IS NOT NULL AND domain IS NOT NULL;
CREATE UNIQUE INDEX accounts_single_instance_actor ON accounts (instance_actor) WHERE instance_actor;

-- An established follow: account_id follows target_account_id. uri is the Follow activity's id.
CREATE TABLE follows (
  id                bigint PRIMARY KEY DEFAULT timestamp_id(now()),
  account_id        bigint NOT NULL REFERENCES accounts ON DELETE CASCADE,
  target_account_id bigint NOT NULL REFERENCES accounts ON DELETE CASCADE,
  uri               text,
  show_reblogs      boolean NOT NULL DEFAULT true,
  notify            boolean NOT NULL DEFAULT false,
  created_at        timestamptz NOT NULL DEFAULT now(),
  UNIQUE (account_id, target_account_id)
);
CREATE INDEX follows_target ON follows (target_account_id, id);
CREATE INDEX follows_account ON follows (account_id, id);
CREATE INDEX follows_uri ON follows (uri) WHERE uri IS NOT NULL;

-- A follow waiting for approval: incoming to a locked local account, or outgoing to a remote one until it Accepts.
CREATE TABLE follow_requests (
  id                bigint PRIMARY KEY DEFAULT timestamp_id(now()),
  account_id        bigint NOT NULL REFERENCES accounts ON DELETE CASCADE,
  target_account_id bigint NOT NULL REFERENCES accounts ON DELETE CASCADE,
  uri               text,
  created_at        timestamptz NOT NULL DEFAULT now(),
  UNIQUE (account_id, target_account_id)
);
CREATE INDEX follow_requests_target ON follow_requests (target_account_id, id);
CREATE INDEX follow_requests_uri ON follow_requests (uri) WHERE uri IS NOT NULL;

CREATE TABLE blocks (
  id                bigint PRIMARY KEY DEFAULT timestamp_id(now()),
  account_id        bigint NOT NULL REFERENCES accounts ON DELETE CASCADE,
  target_account_id bigint NOT NULL REFERENCES accounts ON DELETE CASCADE,
  uri               text,
  created_at        timestamptz NOT NULL DEFAULT now(),
  UNIQUE (account_id, target_account_id)
);

-- Verified incoming activities, processed off the request path. The activity id makes delivery idempotent: a
-- repeated POST of the same activity is acknowledged and not processed again (rows are kept a while after).
CREATE TABLE inbox_jobs (
  id             bigint PRIMARY KEY DEFAULT timestamp_id(now()),
  activity_id    text NOT NULL UNIQUE,
  signer_id      bigint REFERENCES accounts ON DELETE SET NULL,  -- the account whose key signed the POST
  body           jsonb NOT NULL,
  attempts       integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  lease_until    timestamptz,
  lease_owner    text,
  processed_at   timestamptz,
  last_error     text,
  received_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX inbox_jobs_due ON inbox_jobs (next_attempt_at) WHERE processed_at IS NULL;
CREATE INDEX inbox_jobs_processed ON inbox_jobs (processed_at) WHERE processed_at IS NOT NULL;

-- Outgoing deliveries: one row per (activity, destination inbox). The body is the exact JSON to POST; it is signed
-- at send time (a Date header must be fresh). Claimed with leases, so a crash or a second node loses nothing.
CREATE TABLE deliveries (
  id              bigint PRIMARY KEY DEFAULT timestamp_id(now()),
  activity_id     text NOT NULL,
  inbox_url       text NOT NULL,
  host            text NOT NULL,
  signer_id       bigint NOT NULL REFERENCES accounts ON DELETE CASCADE,
  body            text NOT NULL,
  attempts        integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  give_up_at      timestamptz NOT NULL,
  lease_until     timestamptz,
  lease_owner     text,
  last_error      text,
  created_at      timestamptz NOT NULL DEFAULT now(),
  UNIQUE (activity_id, inbox_url)
);
CREATE INDEX deliveries_due ON deliveries (host, next_attempt_at);
CREATE INDEX deliveries_next ON deliveries (next_attempt_at);
