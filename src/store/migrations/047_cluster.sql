-- One server on many nodes (issue 20). Every leased row names its owner (the node's listener name), so that when a
-- node is gone the others give its work back at once instead of waiting for its leases to run out: poll Updates
-- and the hourly history sweep gain an owner here (inbox jobs, deliveries, push deliveries and remote history jobs
-- have one already).
ALTER TABLE polls ADD COLUMN update_lease_owner text;
ALTER TABLE history_sweep ADD COLUMN owner text;

-- Throttle counters shared by the cluster: one fixed window per key (`<throttle>:<what>`), started by its first
-- attempt. UNLOGGED: a crash of PostgreSQL forgetting them only lifts a few blocks early, and the upsert on every
-- sign-in stays off the WAL. Expired rows are deleted by the nodes as they go (store/throttle-counters.ts).
CREATE UNLOGGED TABLE throttle_counters (
  key        text PRIMARY KEY,
  expires_at timestamptz NOT NULL,
  n          integer NOT NULL
);
CREATE INDEX throttle_counters_expires ON throttle_counters (expires_at);
