-- A materialised feed per list (issue 19; Mastodon keeps the same list in Redis, FeedManager#push_to_list): the ids of
-- its members' statuses that may be on the list's page, written in the transaction that makes them candidates. A
-- list's members are a tenth of its owner's follows or fewer, so the pull query tested ~500 statuses newest first for
-- a page of 20; the feed holds only the list's own candidates. Like home_feeds (054) it holds CANDIDATES only: the
-- list query still applies its rule (membership, replies policy, blocks, mutes, visibility, deletion) to each row.
--
-- The invariant the list query relies on (store/timelines.ts listTimeline): every status by a member of list l with
-- visibility <= 2 that is not a remote history post and has id >= list_feed_horizons.horizon (0 when l has no row)
-- has a row here. Below the horizon the pull query answers. Each feed keeps about its newest 800 rows.
CREATE TABLE list_feeds (
  list_id   bigint NOT NULL,
  status_id bigint NOT NULL,
  CONSTRAINT list_feeds_pkey PRIMARY KEY (list_id, status_id),
  CONSTRAINT list_feeds_list_id_fkey FOREIGN KEY (list_id) REFERENCES lists(id) ON DELETE CASCADE
);

CREATE TABLE list_feed_horizons (
  list_id bigint NOT NULL,
  horizon bigint NOT NULL,
  CONSTRAINT list_feed_horizons_pkey PRIMARY KEY (list_id),
  CONSTRAINT list_feed_horizons_list_id_fkey FOREIGN KEY (list_id) REFERENCES lists(id) ON DELETE CASCADE
);

/* Rows of list l below `edge` go and its horizon rises to it (never falls). */
CREATE FUNCTION list_feed_raise(l bigint, edge bigint) RETURNS void LANGUAGE sql AS $$
  INSERT INTO list_feed_horizons AS h (list_id, horizon) VALUES (l, edge)
  ON CONFLICT (list_id) DO UPDATE SET horizon = greatest(h.horizon, excluded.horizon);
  DELETE FROM list_feeds WHERE list_id = l AND status_id < edge;
$$;

/* Keeps list l's newest 800 rows. */
CREATE FUNCTION list_feed_trim(l bigint) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  edge bigint;
BEGIN
  SELECT status_id INTO edge FROM list_feeds WHERE list_id = l ORDER BY status_id DESC OFFSET 799 LIMIT 1;
  IF edge IS NOT NULL THEN
    PERFORM list_feed_raise(l, edge);
  END IF;
END $$;

/*
 * A status became a candidate: it goes to every list its author is a member of, at or above each list's horizon. About
 * one list in 128 is trimmed, as home feeds are.
 */
CREATE FUNCTION list_feeds_of_status() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  l bigint;
BEGIN
  INSERT INTO list_feeds (list_id, status_id)
  SELECT la.list_id, NEW.id FROM list_accounts la LEFT JOIN list_feed_horizons h ON h.list_id = la.list_id
  WHERE la.account_id = NEW.account_id AND (h.horizon IS NULL OR NEW.id >= h.horizon)
  ON CONFLICT DO NOTHING;
  FOR l IN SELECT la.list_id FROM list_accounts la WHERE la.account_id = NEW.account_id AND random() < 1.0 / 128 LOOP
    PERFORM list_feed_trim(l);
  END LOOP;
  RETURN NULL;
END $$;

-- A new status, or a remote history post promoted by a delivery (history true → false); directs are never on lists.
CREATE TRIGGER list_feeds_status_insert AFTER INSERT ON statuses FOR EACH ROW
  WHEN (NOT NEW.history AND NEW.deleted_at IS NULL AND NEW.visibility <= 2) EXECUTE FUNCTION list_feeds_of_status();
CREATE TRIGGER list_feeds_status_promote AFTER UPDATE OF history ON statuses FOR EACH ROW
  WHEN (OLD.history AND NOT NEW.history AND NEW.deleted_at IS NULL AND NEW.visibility <= 2) EXECUTE FUNCTION list_feeds_of_status();

/*
 * An account joins a list: its newest 800 candidates at or above the list's horizon come in; if it has that many, the
 * horizon rises to the 800th. Leaving takes its statuses out.
 */
CREATE FUNCTION list_feeds_of_member() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  edge bigint;
BEGIN
  -- A list being deleted takes all its rows by its foreign key: its members' rows are not sought one member at a time.
  IF TG_OP IN ('UPDATE', 'DELETE') AND EXISTS (SELECT 1 FROM lists l WHERE l.id = OLD.list_id) THEN
    DELETE FROM list_feeds lf USING statuses s
    WHERE lf.list_id = OLD.list_id AND s.id = lf.status_id AND s.account_id = OLD.account_id;
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') THEN
    INSERT INTO list_feeds (list_id, status_id)
    SELECT NEW.list_id, s.id FROM statuses s
    WHERE s.account_id = NEW.account_id AND s.deleted_at IS NULL AND s.visibility <= 2 AND NOT s.history
      AND s.id >= coalesce((SELECT h.horizon FROM list_feed_horizons h WHERE h.list_id = NEW.list_id), 0)
    ORDER BY s.id DESC LIMIT 800
    ON CONFLICT DO NOTHING;
    SELECT s.id INTO edge FROM statuses s
    WHERE s.account_id = NEW.account_id AND s.deleted_at IS NULL AND s.visibility <= 2 AND NOT s.history
    ORDER BY s.id DESC OFFSET 799 LIMIT 1;
    IF edge IS NOT NULL THEN
      PERFORM list_feed_raise(NEW.list_id, edge);
    END IF;
    PERFORM list_feed_trim(NEW.list_id);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER list_feeds_member AFTER INSERT OR DELETE ON list_accounts FOR EACH ROW EXECUTE FUNCTION list_feeds_of_member();
CREATE TRIGGER list_feeds_member_update AFTER UPDATE OF list_id, account_id ON list_accounts FOR EACH ROW
  WHEN (OLD.list_id IS DISTINCT FROM NEW.list_id OR OLD.account_id IS DISTINCT FROM NEW.account_id)
  EXECUTE FUNCTION list_feeds_of_member();

-- What was there before: each list's newest 800 candidates; a list with that many gets the 800th as horizon.
INSERT INTO list_feeds (list_id, status_id)
SELECT l.id, c.id FROM lists l, LATERAL (
  SELECT s.id FROM statuses s
  WHERE s.deleted_at IS NULL AND NOT s.history AND s.visibility <= 2
    AND s.account_id IN (SELECT la.account_id FROM list_accounts la WHERE la.list_id = l.id)
  ORDER BY s.id DESC LIMIT 800
) c;

INSERT INTO list_feed_horizons (list_id, horizon)
SELECT list_id, min(status_id) FROM list_feeds GROUP BY list_id HAVING count(*) >= 800;

-- Planned from the start with the fill's statistics (a page reads its newest rows by the primary key).
ANALYZE list_feeds, list_feed_horizons;
