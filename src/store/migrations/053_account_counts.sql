-- An account's followers, following, statuses and last status time, kept as they happen instead of counted for every
-- author on every page (issue 19; Mastodon's account_stats). Triggers keep them in the transaction of the act itself,
-- whichever path makes it (the API, an inbox activity, an account's deletion, history pruning). What counts is what
-- the page used to count: rows of follows (either side); live statuses that are not direct, boosts included, and the
-- newest created_at among them. No foreign key: a row for an account gone is harmless (ids are never reused).
CREATE TABLE account_counts (
  account_id     bigint PRIMARY KEY,
  followers      integer NOT NULL DEFAULT 0,
  following      integer NOT NULL DEFAULT 0,
  statuses       integer NOT NULL DEFAULT 0,
  last_status_at timestamptz
);

CREATE FUNCTION account_counts_add(account bigint, d_followers integer, d_following integer, d_statuses integer, last timestamptz) RETURNS void
LANGUAGE sql AS $$
  INSERT INTO account_counts AS c (account_id, followers, following, statuses, last_status_at)
  VALUES (account, d_followers, d_following, d_statuses, last)
  ON CONFLICT (account_id) DO UPDATE SET followers = c.followers + d_followers, following = c.following + d_following,
    statuses = c.statuses + d_statuses, last_status_at = greatest(c.last_status_at, last)
$$;

CREATE FUNCTION account_counts_of_follow() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    PERFORM account_counts_add(OLD.account_id, 0, -1, 0, NULL);
    PERFORM account_counts_add(OLD.target_account_id, -1, 0, 0, NULL);
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    PERFORM account_counts_add(NEW.account_id, 0, 1, 0, NULL);
    PERFORM account_counts_add(NEW.target_account_id, 1, 0, 0, NULL);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER account_counts_follow AFTER INSERT OR DELETE ON follows FOR EACH ROW EXECUTE FUNCTION account_counts_of_follow();
CREATE TRIGGER account_counts_follow_update AFTER UPDATE OF account_id, target_account_id ON follows FOR EACH ROW
  WHEN (OLD.account_id IS DISTINCT FROM NEW.account_id OR OLD.target_account_id IS DISTINCT FROM NEW.target_account_id)
  EXECUTE FUNCTION account_counts_of_follow();

CREATE FUNCTION account_counts_of_status() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  last timestamptz;
BEGIN
  -- What the old row counted goes; what the new row counts comes.
  IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.deleted_at IS NULL AND OLD.visibility <> 3 THEN
    UPDATE account_counts SET statuses = statuses - 1 WHERE account_id = OLD.account_id RETURNING last_status_at INTO last;
    -- The newest status gone: the newest of the rest, read in a statement of its own (after the row lock above, so
    -- that it sees a status another transaction added meanwhile). Rare: only when the newest one goes.
    IF last IS NOT NULL AND OLD.created_at >= last THEN
      UPDATE account_counts SET last_status_at = (SELECT max(s.created_at) FROM statuses s
          WHERE s.account_id = OLD.account_id AND s.deleted_at IS NULL AND s.visibility <> 3 AND s.id <> OLD.id)
        WHERE account_id = OLD.account_id;
    END IF;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.deleted_at IS NULL AND NEW.visibility <> 3 THEN
    PERFORM account_counts_add(NEW.account_id, 0, 0, 1, NEW.created_at);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER account_counts_status_insert AFTER INSERT ON statuses FOR EACH ROW
  WHEN (NEW.deleted_at IS NULL AND NEW.visibility <> 3)
  EXECUTE FUNCTION account_counts_of_status();
CREATE TRIGGER account_counts_status_update AFTER UPDATE OF deleted_at, visibility, account_id, created_at ON statuses FOR EACH ROW
  WHEN (OLD.deleted_at IS DISTINCT FROM NEW.deleted_at OR OLD.visibility IS DISTINCT FROM NEW.visibility
    OR OLD.account_id IS DISTINCT FROM NEW.account_id OR OLD.created_at IS DISTINCT FROM NEW.created_at)
  EXECUTE FUNCTION account_counts_of_status();
CREATE TRIGGER account_counts_status_delete AFTER DELETE ON statuses FOR EACH ROW
  WHEN (OLD.deleted_at IS NULL AND OLD.visibility <> 3)
  EXECUTE FUNCTION account_counts_of_status();

INSERT INTO account_counts (account_id, followers, following, statuses, last_status_at)
SELECT id, sum(followers)::int, sum(following)::int, sum(statuses)::int, max(last) FROM (
  SELECT target_account_id AS id, count(*) AS followers, 0 AS following, 0 AS statuses, NULL::timestamptz AS last FROM follows GROUP BY 1
  UNION ALL SELECT account_id, 0, count(*), 0, NULL FROM follows GROUP BY 1
  UNION ALL SELECT account_id, 0, 0, count(*), max(created_at) FROM statuses WHERE deleted_at IS NULL AND visibility <> 3 GROUP BY 1
) x GROUP BY id;

-- The timelines' "author not suspended" test (visibility.ts authorNotSuspended) became an anti-join over every
-- suspended account, found by reading the whole accounts table for each page (2–3 ms a page with 10,000 accounts,
-- growing with every remote account known). Suspended accounts are few: this index holds only them.
CREATE INDEX accounts_suspended ON accounts (id) WHERE suspended_at IS NOT NULL;
