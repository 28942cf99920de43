-- Posting cost that does not grow with followers (issue 39; decision 0065). Home-feed fan-out inside the posting
-- transaction costs ~6 µs per local follower (41 ms at 5,000), so past a threshold of local followers the followers'
-- rows are written by a durable job instead, in batches of follows taken in follows.id order (follows_target), under
-- a lease, by a home-fan-out actor on any node (actors/home-fan-out.ts). The author's own row, directs' mentioned
-- accounts and followed tags stay in the transaction.
--
-- The invariant of 054 becomes: every candidate of member m with id >= the EFFECTIVE horizon has a row, where the
-- effective horizon is the greater of home_feed_horizons.horizon and (the newest status of a pending job by an
-- account m follows) + 1 (store/timelines.ts homeFromFeed reads both in one statement). A pending job's status is
-- thus never vouched for by the feed: until its job is done, pages reaching it are answered by the pull query. A
-- batch commits its rows and its cursor together; the last one deletes the job, in the same transaction.
CREATE TABLE home_feed_jobs (
  status_id    bigint NOT NULL,
  author_id    bigint NOT NULL,
  -- The follows done so far: those with id <= after_follow (rows in follows.id order, so new follows come last).
  after_follow bigint NOT NULL DEFAULT 0,
  queued_at    timestamptz NOT NULL DEFAULT now(),
  lease_owner  text,
  lease_until  timestamptz,
  CONSTRAINT home_feed_jobs_pkey PRIMARY KEY (status_id),
  CONSTRAINT home_feed_jobs_status_id_fkey FOREIGN KEY (status_id) REFERENCES statuses(id) ON DELETE CASCADE
);
CREATE INDEX home_feed_jobs_author ON home_feed_jobs (author_id);

-- Work queued: every node's home-fan-out actor looks (once per statement).
CREATE FUNCTION home_feed_jobs_wake() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('stoa_work', 'homefeed');
  RETURN NULL;
END $$;
CREATE TRIGGER home_feed_jobs_wake AFTER INSERT ON home_feed_jobs FOR EACH STATEMENT EXECUTE FUNCTION home_feed_jobs_wake();

/*
 * Local followers past which a post's fan-out is a job: the connection's setting stoa.home_fan_out_threshold (the
 * server sets it from HOME_FANOUT_THRESHOLD when it connects), 200 without one (psql, other tools).
 */
CREATE FUNCTION home_feed_fan_out_threshold() RETURNS integer LANGUAGE sql STABLE AS $$
  SELECT coalesce(nullif(current_setting('stoa.home_fan_out_threshold', true), '')::integer, 200);
$$;

/*
 * As in 063, except that an author with more local followers than the threshold gets a job instead of the followers'
 * rows. Counting stops at threshold + 1, so deciding costs at most the threshold's probes, not the followers'.
 */
CREATE OR REPLACE FUNCTION home_feed_fan_out(st bigint, author bigint, vis smallint) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  m bigint;
  threshold integer := home_feed_fan_out_threshold();
  deferred boolean := false;
BEGIN
  IF vis <= 2 THEN
    deferred := (SELECT count(*) FROM (SELECT 1 FROM follows f JOIN users u ON u.account_id = f.account_id
                 WHERE f.target_account_id = author LIMIT threshold + 1) c) > threshold;
  END IF;
  IF deferred THEN
    INSERT INTO home_feed_jobs (status_id, author_id) VALUES (st, author) ON CONFLICT DO NOTHING;
  END IF;
  INSERT INTO home_feeds (account_id, status_id)
  SELECT r.id, st FROM (
    SELECT author AS id WHERE EXISTS (SELECT 1 FROM users u WHERE u.account_id = author)
    UNION ALL SELECT f.account_id FROM follows f JOIN users u ON u.account_id = f.account_id
      WHERE vis <= 2 AND NOT deferred AND f.target_account_id = author
    UNION ALL SELECT sm.account_id FROM status_mentions sm JOIN users u ON u.account_id = sm.account_id WHERE vis = 3 AND sm.status_id = st
    UNION ALL SELECT tf.account_id FROM status_tags stg JOIN tag_follows tf ON tf.tag_id = stg.tag_id JOIN users u ON u.account_id = tf.account_id
      WHERE vis = 0 AND stg.status_id = st
  ) r LEFT JOIN home_feed_horizons h ON h.account_id = r.id
  WHERE h.horizon IS NULL OR st >= h.horizon
  ON CONFLICT DO NOTHING;
  IF NOT deferred THEN
    FOR m IN SELECT f.account_id FROM follows f JOIN users u ON u.account_id = f.account_id
      WHERE vis <= 2 AND f.target_account_id = author AND random() < 1.0 / 128 LOOP
      PERFORM home_feed_trim(m);
    END LOOP;
  END IF;
  IF random() < 1.0 / 128 THEN
    PERFORM home_feed_trim(author);
  END IF;
END $$;

/*
 * One batch of job `st`, held by `owner`: the next `size` follows of its author (in follows.id order) get the status,
 * each at or above its member's horizon, about one in 128 trimmed, as in the transaction. The cursor moves in the same
 * transaction, so a batch committed is never redone and one rolled back (a crash) is redone whole. 'lost': the job is
 * not this owner's (its lease ran out and another node took it, or it is done); 'done': it is deleted (all follows
 * done, or its status deleted or no longer a candidate); 'more': call again.
 */
CREATE FUNCTION home_feed_job_batch(st bigint, owner text, size integer, lease_ms integer) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  j home_feed_jobs;
  last bigint;
  n integer;
  m bigint;
BEGIN
  SELECT * INTO j FROM home_feed_jobs WHERE status_id = st AND lease_owner = owner FOR UPDATE;
  IF NOT FOUND THEN
    RETURN 'lost';
  END IF;
  IF NOT EXISTS (SELECT 1 FROM statuses s WHERE s.id = st AND s.deleted_at IS NULL AND NOT s.history AND s.visibility <= 2) THEN
    DELETE FROM home_feed_jobs WHERE status_id = st;
    RETURN 'done';
  END IF;
  WITH b AS (
    SELECT f.id, f.account_id FROM follows f WHERE f.target_account_id = j.author_id AND f.id > j.after_follow ORDER BY f.id LIMIT size
  ), ins AS (
    INSERT INTO home_feeds (account_id, status_id)
    SELECT b.account_id, st FROM b JOIN users u ON u.account_id = b.account_id LEFT JOIN home_feed_horizons h ON h.account_id = b.account_id
    WHERE h.horizon IS NULL OR st >= h.horizon
    ON CONFLICT DO NOTHING
  )
  SELECT max(b.id), count(*) INTO last, n FROM b;
  FOR m IN SELECT f.account_id FROM follows f JOIN users u ON u.account_id = f.account_id
    WHERE f.target_account_id = j.author_id AND f.id > j.after_follow AND f.id <= last AND random() < 1.0 / 128 LOOP
    PERFORM home_feed_trim(m);
  END LOOP;
  IF n < size THEN
    DELETE FROM home_feed_jobs WHERE status_id = st;
    RETURN 'done';
  END IF;
  UPDATE home_feed_jobs SET after_follow = last, lease_until = now() + lease_ms * interval '1 millisecond' WHERE status_id = st;
  RETURN 'more';
END $$;
