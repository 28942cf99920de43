-- A materialised home feed per local member (issue 19; Mastodon keeps the same list in Redis): the ids of statuses
-- that may be on their home page, written in the transaction that makes them candidates, so a member following few
-- of very many accounts reads their page from ~20 rows instead of walking back over every status. It holds
-- CANDIDATES only: the home query still applies its rule (follows, show_reblogs, languages, mutes, blocks, exclusive
-- lists, suspension, deletion) to each row, so an unfollow, block or mute is right at once.
--
-- The invariant the home query relies on (store/timelines.ts home): every status that is a candidate for member m
-- (theirs, or visibility <= 2 by an account m follows, or direct and mentioning m; not a remote history post) with
-- id >= home_feed_horizons.horizon (0 when m has no row) has a row here. Below the horizon the feed may lack rows,
-- and the pull query answers. Rows are only ever added at or above the horizon; raising the horizon deletes the rows
-- below it (home_feed_raise). Each feed keeps about its newest 800 rows (Mastodon's FeedManager::MAX_ITEMS).
CREATE TABLE home_feeds (
  account_id bigint NOT NULL,
  status_id  bigint NOT NULL,
  CONSTRAINT home_feeds_pkey PRIMARY KEY (account_id, status_id)
);

CREATE TABLE home_feed_horizons (
  account_id bigint NOT NULL,
  horizon    bigint NOT NULL,
  CONSTRAINT home_feed_horizons_pkey PRIMARY KEY (account_id)
);

/* Rows of m below `edge` go and the horizon rises to it (never falls). */
CREATE FUNCTION home_feed_raise(member bigint, edge bigint) RETURNS void LANGUAGE sql AS $$
  INSERT INTO home_feed_horizons AS h (account_id, horizon) VALUES (member, edge)
  ON CONFLICT (account_id) DO UPDATE SET horizon = greatest(h.horizon, excluded.horizon);
  DELETE FROM home_feeds WHERE account_id = member AND status_id < edge;
$$;

/* Keeps m's newest 800 rows. */
CREATE FUNCTION home_feed_trim(member bigint) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  edge bigint;
BEGIN
  SELECT status_id INTO edge FROM home_feeds WHERE account_id = member ORDER BY status_id DESC OFFSET 799 LIMIT 1;
  IF edge IS NOT NULL THEN
    PERFORM home_feed_raise(member, edge);
  END IF;
END $$;

/*
 * Status `st` (by `author`, of `vis`) became a candidate: it goes to its local author, to the local followers of its
 * author (visibility <= 2) or to its local mentioned accounts (direct), each only at or above their horizon. Set-based:
 * one INSERT for every follower. About one follower in 128 has their feed trimmed, so a feed overshoots 800 by ~128
 * rows on average and no post pays for trimming all its followers' feeds.
 */
CREATE FUNCTION home_feed_fan_out(st bigint, author bigint, vis smallint) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  m bigint;
BEGIN
  INSERT INTO home_feeds (account_id, status_id)
  SELECT r.id, st FROM (
    SELECT author AS id WHERE EXISTS (SELECT 1 FROM users u WHERE u.account_id = author)
    UNION ALL SELECT f.account_id FROM follows f JOIN users u ON u.account_id = f.account_id WHERE vis <= 2 AND f.target_account_id = author
    UNION ALL SELECT sm.account_id FROM status_mentions sm JOIN users u ON u.account_id = sm.account_id WHERE vis = 3 AND sm.status_id = st
  ) r LEFT JOIN home_feed_horizons h ON h.account_id = r.id
  WHERE h.horizon IS NULL OR st >= h.horizon
  ON CONFLICT DO NOTHING;
  FOR m IN SELECT f.account_id FROM follows f JOIN users u ON u.account_id = f.account_id
    WHERE vis <= 2 AND f.target_account_id = author AND random() < 1.0 / 128 LOOP
    PERFORM home_feed_trim(m);
  END LOOP;
  IF random() < 1.0 / 128 THEN
    PERFORM home_feed_trim(author);
  END IF;
END $$;

CREATE FUNCTION home_feeds_of_status() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM home_feed_fan_out(NEW.id, NEW.account_id, NEW.visibility::smallint);
  RETURN NULL;
END $$;

-- A new status, or a remote history post promoted by a delivery (history true → false).
CREATE TRIGGER home_feeds_status_insert AFTER INSERT ON statuses FOR EACH ROW
  WHEN (NOT NEW.history AND NEW.deleted_at IS NULL) EXECUTE FUNCTION home_feeds_of_status();
CREATE TRIGGER home_feeds_status_promote AFTER UPDATE OF history ON statuses FOR EACH ROW
  WHEN (OLD.history AND NOT NEW.history AND NEW.deleted_at IS NULL) EXECUTE FUNCTION home_feeds_of_status();

-- A direct status's mentions are written after the status itself.
CREATE FUNCTION home_feeds_of_mention() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO home_feeds (account_id, status_id)
  SELECT NEW.account_id, s.id FROM statuses s
  WHERE s.id = NEW.status_id AND s.visibility = 3 AND NOT s.history AND s.deleted_at IS NULL
    AND EXISTS (SELECT 1 FROM users u WHERE u.account_id = NEW.account_id)
    AND s.id >= coalesce((SELECT h.horizon FROM home_feed_horizons h WHERE h.account_id = NEW.account_id), 0)
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;

CREATE TRIGGER home_feeds_mention AFTER INSERT ON status_mentions FOR EACH ROW EXECUTE FUNCTION home_feeds_of_mention();

/*
 * A local member follows an account: its newest 800 candidate statuses at or above the member's horizon come in. If
 * it has that many, the horizon rises to the 800th (older ones of it are not here, so below that the pull query
 * answers). An unfollow takes the account's non-direct statuses out (no longer candidates; directs mentioning the
 * member still are).
 */
CREATE FUNCTION home_feeds_of_follow() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  edge bigint;
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') AND EXISTS (SELECT 1 FROM users u WHERE u.account_id = OLD.account_id) THEN
    DELETE FROM home_feeds hf USING statuses s
    WHERE hf.account_id = OLD.account_id AND s.id = hf.status_id AND s.account_id = OLD.target_account_id AND s.visibility <= 2;
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') AND EXISTS (SELECT 1 FROM users u WHERE u.account_id = NEW.account_id) THEN
    INSERT INTO home_feeds (account_id, status_id)
    SELECT NEW.account_id, s.id FROM statuses s
    WHERE s.account_id = NEW.target_account_id AND s.deleted_at IS NULL AND s.visibility <= 2 AND NOT s.history
      AND s.id >= coalesce((SELECT h.horizon FROM home_feed_horizons h WHERE h.account_id = NEW.account_id), 0)
    ORDER BY s.id DESC LIMIT 800
    ON CONFLICT DO NOTHING;
    SELECT s.id INTO edge FROM statuses s
    WHERE s.account_id = NEW.target_account_id AND s.deleted_at IS NULL AND s.visibility <= 2 AND NOT s.history
    ORDER BY s.id DESC OFFSET 799 LIMIT 1;
    IF edge IS NOT NULL THEN
      PERFORM home_feed_raise(NEW.account_id, edge);
    END IF;
    PERFORM home_feed_trim(NEW.account_id);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER home_feeds_follow AFTER INSERT OR DELETE ON follows FOR EACH ROW EXECUTE FUNCTION home_feeds_of_follow();
CREATE TRIGGER home_feeds_follow_update AFTER UPDATE OF account_id, target_account_id ON follows FOR EACH ROW
  WHEN (OLD.account_id IS DISTINCT FROM NEW.account_id OR OLD.target_account_id IS DISTINCT FROM NEW.target_account_id)
  EXECUTE FUNCTION home_feeds_of_follow();

-- What was there before: each local member's newest 800 candidates; a member with that many gets the 800th as horizon.
INSERT INTO home_feeds (account_id, status_id)
SELECT u.account_id, c.id FROM users u, LATERAL (
  SELECT s.id FROM statuses s
  WHERE s.deleted_at IS NULL AND NOT s.history AND (s.account_id = u.account_id
    OR (s.visibility <= 2 AND s.account_id IN (SELECT f.target_account_id FROM follows f WHERE f.account_id = u.account_id))
    OR (s.visibility = 3 AND EXISTS (SELECT 1 FROM status_mentions sm WHERE sm.status_id = s.id AND sm.account_id = u.account_id)))
  ORDER BY s.id DESC LIMIT 800
) c;

INSERT INTO home_feed_horizons (account_id, horizon)
SELECT account_id, min(status_id) FROM home_feeds GROUP BY account_id HAVING count(*) >= 800;
