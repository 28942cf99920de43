-- Retention and pruning of remote history (issue 17): the record of prune runs, the media files whose cleanup a
-- prune queued, and the sweep's schedule row (one node at a time takes it, an hour apart, cluster-wide).

CREATE TABLE history_prune_runs (
  id            bigint PRIMARY KEY DEFAULT timestamp_id(now()),
  kind          text NOT NULL CHECK (kind IN ('sweep', 'manual')),
  ran_at        timestamptz NOT NULL,
  removed       integer NOT NULL,
  media_queued  integer NOT NULL,
  by_account_id bigint REFERENCES accounts(id) ON DELETE SET NULL
);

-- Cached copies (media_attachments.file_name) of pruned posts' media: the rows are gone with their posts, the files
-- are deleted from disk by the sweep actor (outside the transaction that pruned them).
CREATE TABLE media_cleanup (
  file_name text PRIMARY KEY,
  queued_at timestamptz NOT NULL DEFAULT now()
);

-- The hourly sweep's lease: a node runs the sweep when it moves next_at forward from a time already past, in one
-- UPDATE, so two nodes never sweep in the same hour.
CREATE TABLE history_sweep (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  next_at   timestamptz NOT NULL
);
INSERT INTO history_sweep (next_at) VALUES ('-infinity');

-- A prune checks its keep-rules and cascades its deletes by status id: without these, each removed post costs a
-- scan of the table (measured: 372 rows/s over 20,000 history posts; bench/history-prune.ts).
CREATE INDEX bookmarks_status ON bookmarks (status_id);
CREATE INDEX pins_status ON pins (status_id);
CREATE INDEX notifications_status ON notifications (status_id) WHERE status_id IS NOT NULL;
CREATE INDEX status_idempotency_status ON status_idempotency (status_id);
CREATE INDEX thread_mutes_root ON thread_mutes (root_status_id);
-- statuses_reblogs leaves out deleted boosts, which the cascade must find too.
CREATE INDEX statuses_reblog_of ON statuses (reblog_of_id) WHERE reblog_of_id IS NOT NULL;
CREATE INDEX reports_statuses ON reports USING gin (status_ids);
