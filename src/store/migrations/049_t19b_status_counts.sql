-- A status's replies, boosts, favourites and quotes, kept as they happen instead of counted on every page (issue 19).
-- Triggers keep them in the transaction of the act itself, whichever path makes it (the API, an inbox activity, an
-- account's deletion, history pruning): a favourite and its undoing; a status posted, deleted (deleted_at), made
-- another visibility, or removed. What counts is what the page used to count: live boosts; live public and unlisted
-- replies and quotes. No foreign key: a count row goes with its status by the trigger, and a row for a status not
-- held (a reply to a post we never fetched) is harmless.
CREATE TABLE status_counts (
  status_id  bigint PRIMARY KEY,
  replies    integer NOT NULL DEFAULT 0,
  reblogs    integer NOT NULL DEFAULT 0,
  favourites integer NOT NULL DEFAULT 0,
  quotes     integer NOT NULL DEFAULT 0
);

CREATE FUNCTION status_counts_add(status bigint, d_replies integer, d_reblogs integer, d_favourites integer, d_quotes integer) RETURNS void
LANGUAGE sql AS $$
  INSERT INTO status_counts AS c (status_id, replies, reblogs, favourites, quotes) VALUES (status, d_replies, d_reblogs, d_favourites, d_quotes)
  ON CONFLICT (status_id) DO UPDATE SET replies = c.replies + d_replies, reblogs = c.reblogs + d_reblogs,
    favourites = c.favourites + d_favourites, quotes = c.quotes + d_quotes
$$;

CREATE FUNCTION status_counts_of_status() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- What the old row counted goes; what the new row counts comes.
  IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.deleted_at IS NULL THEN
    IF OLD.reblog_of_id IS NOT NULL THEN PERFORM status_counts_add(OLD.reblog_of_id, 0, -1, 0, 0); END IF;
    IF OLD.visibility <= 1 AND OLD.in_reply_to_id IS NOT NULL THEN PERFORM status_counts_add(OLD.in_reply_to_id, -1, 0, 0, 0); END IF;
    IF OLD.visibility <= 1 AND OLD.quote_of_id IS NOT NULL THEN PERFORM status_counts_add(OLD.quote_of_id, 0, 0, 0, -1); END IF;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.deleted_at IS NULL THEN
    IF NEW.reblog_of_id IS NOT NULL THEN PERFORM status_counts_add(NEW.reblog_of_id, 0, 1, 0, 0); END IF;
    IF NEW.visibility <= 1 AND NEW.in_reply_to_id IS NOT NULL THEN PERFORM status_counts_add(NEW.in_reply_to_id, 1, 0, 0, 0); END IF;
    IF NEW.visibility <= 1 AND NEW.quote_of_id IS NOT NULL THEN PERFORM status_counts_add(NEW.quote_of_id, 0, 0, 0, 1); END IF;
  END IF;
  IF TG_OP = 'DELETE' THEN DELETE FROM status_counts WHERE status_id = OLD.id; END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER status_counts_insert AFTER INSERT ON statuses FOR EACH ROW
  WHEN (NEW.deleted_at IS NULL AND (NEW.reblog_of_id IS NOT NULL OR NEW.in_reply_to_id IS NOT NULL OR NEW.quote_of_id IS NOT NULL))
  EXECUTE FUNCTION status_counts_of_status();
CREATE TRIGGER status_counts_update AFTER UPDATE OF deleted_at, visibility, reblog_of_id, in_reply_to_id, quote_of_id ON statuses FOR EACH ROW
  WHEN (OLD.deleted_at IS DISTINCT FROM NEW.deleted_at OR OLD.visibility IS DISTINCT FROM NEW.visibility
    OR OLD.reblog_of_id IS DISTINCT FROM NEW.reblog_of_id OR OLD.in_reply_to_id IS DISTINCT FROM NEW.in_reply_to_id
    OR OLD.quote_of_id IS DISTINCT FROM NEW.quote_of_id)
  EXECUTE FUNCTION status_counts_of_status();
CREATE TRIGGER status_counts_delete AFTER DELETE ON statuses FOR EACH ROW EXECUTE FUNCTION status_counts_of_status();

CREATE FUNCTION status_counts_of_favourite() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN PERFORM status_counts_add(NEW.status_id, 0, 0, 1, 0);
  ELSE UPDATE status_counts SET favourites = favourites - 1 WHERE status_id = OLD.status_id; END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER status_counts_favourite AFTER INSERT OR DELETE ON favourites FOR EACH ROW EXECUTE FUNCTION status_counts_of_favourite();

INSERT INTO status_counts (status_id, replies, reblogs, favourites, quotes)
SELECT id, sum(replies)::int, sum(reblogs)::int, sum(favourites)::int, sum(quotes)::int FROM (
  SELECT in_reply_to_id AS id, count(*) AS replies, 0 AS reblogs, 0 AS favourites, 0 AS quotes FROM statuses
    WHERE in_reply_to_id IS NOT NULL AND deleted_at IS NULL AND visibility <= 1 GROUP BY 1
  UNION ALL SELECT reblog_of_id, 0, count(*), 0, 0 FROM statuses WHERE reblog_of_id IS NOT NULL AND deleted_at IS NULL GROUP BY 1
  UNION ALL SELECT status_id, 0, 0, count(*), 0 FROM favourites GROUP BY 1
  UNION ALL SELECT quote_of_id, 0, 0, 0, count(*) FROM statuses WHERE quote_of_id IS NOT NULL AND deleted_at IS NULL AND visibility <= 1 GROUP BY 1
) x GROUP BY id;
