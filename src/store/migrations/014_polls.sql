-- Polls attached to statuses. Local polls count their votes here; a remote poll keeps the counts its server
-- publishes (remote_counts, remote_voters) and the votes our members sent.
CREATE TABLE polls (
  id            bigint PRIMARY KEY DEFAULT timestamp_id(now()),
  status_id     bigint NOT NULL UNIQUE REFERENCES statuses ON DELETE CASCADE,
  account_id    bigint NOT NULL REFERENCES accounts ON DELETE CASCADE,
  options       text[] NOT NULL,
  multiple      boolean NOT NULL DEFAULT false,
  hide_totals   boolean NOT NULL DEFAULT false,
  expires_at    timestamptz,
  remote_counts integer[],
  remote_voters integer,
  created_at    timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE poll_votes (
  id         bigint PRIMARY KEY DEFAULT timestamp_id(now()),
  poll_id    bigint NOT NULL REFERENCES polls ON DELETE CASCADE,
  account_id bigint NOT NULL REFERENCES accounts ON DELETE CASCADE,
  choice     smallint NOT NULL,
  uri        text UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (poll_id, account_id, choice)
);
CREATE INDEX poll_votes_account ON poll_votes (account_id, poll_id);
