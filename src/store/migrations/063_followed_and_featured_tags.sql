-- Followed hashtags (Mastodon's tag_follows) and featured hashtags (featured_tags). A followed tag's public posts are
-- home candidates of the follower (Mastodon's FanOutOnWriteService#deliver_to_hashtag_followers!), so the home
-- feed's invariant (054: every candidate at or above the member's horizon has a row) is kept for them too: a tag
-- linked to a status, a status promoted from history, and a new tag follow each write the rows they make candidates.
CREATE TABLE tag_follows (
  id         bigint DEFAULT timestamp_id(now()) NOT NULL,
  account_id bigint NOT NULL,
  tag_id     bigint NOT NULL,
  created_at timestamptz DEFAULT now() NOT NULL,
  CONSTRAINT tag_follows_pkey PRIMARY KEY (id),
  CONSTRAINT tag_follows_account_id_tag_id_key UNIQUE (account_id, tag_id),
  CONSTRAINT tag_follows_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT tag_follows_tag_id_fkey FOREIGN KEY (tag_id) REFERENCES tags(id) ON DELETE CASCADE
);
CREATE INDEX tag_follows_tag ON tag_follows (tag_id, account_id);

-- A member's featured hashtags (at most 10, checked by the store under the account's row lock). `name` is the
-- spelling the member gave (Mastodon's FeaturedTag#display_name); counts are read from status_tags when shown.
CREATE TABLE featured_tags (
  id         bigint DEFAULT timestamp_id(now()) NOT NULL,
  account_id bigint NOT NULL,
  tag_id     bigint NOT NULL,
  name       text NOT NULL,
  created_at timestamptz DEFAULT now() NOT NULL,
  CONSTRAINT featured_tags_pkey PRIMARY KEY (id),
  CONSTRAINT featured_tags_account_id_tag_id_key UNIQUE (account_id, tag_id),
  CONSTRAINT featured_tags_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT featured_tags_tag_id_fkey FOREIGN KEY (tag_id) REFERENCES tags(id) ON DELETE CASCADE
);

/*
 * As in 054, plus the local followers of the status's tags when it is public (a promoted history post has its tags
 * already; a new status has none yet: home_feeds_of_tag writes those rows when its tags are linked).
 */
CREATE OR REPLACE FUNCTION home_feed_fan_out(st bigint, author bigint, vis smallint) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  m bigint;
BEGIN
  INSERT INTO home_feeds (account_id, status_id)
  SELECT r.id, st FROM (
    SELECT author AS id WHERE EXISTS (SELECT 1 FROM users u WHERE u.account_id = author)
    UNION ALL SELECT f.account_id FROM follows f JOIN users u ON u.account_id = f.account_id WHERE vis <= 2 AND f.target_account_id = author
    UNION ALL SELECT sm.account_id FROM status_mentions sm JOIN users u ON u.account_id = sm.account_id WHERE vis = 3 AND sm.status_id = st
    UNION ALL SELECT tf.account_id FROM status_tags stg JOIN tag_follows tf ON tf.tag_id = stg.tag_id JOIN users u ON u.account_id = tf.account_id
      WHERE vis = 0 AND stg.status_id = st
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

-- A tag linked to a public status (a new one, or an edit's new tag): the status into its local followers' feeds.
CREATE FUNCTION home_feeds_of_tag() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  m bigint;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM statuses s WHERE s.id = NEW.status_id AND s.visibility = 0 AND s.reblog_of_id IS NULL
      AND NOT s.history AND s.deleted_at IS NULL) THEN
    RETURN NULL;
  END IF;
  INSERT INTO home_feeds (account_id, status_id)
  SELECT tf.account_id, NEW.status_id FROM tag_follows tf JOIN users u ON u.account_id = tf.account_id
    LEFT JOIN home_feed_horizons h ON h.account_id = tf.account_id
  WHERE tf.tag_id = NEW.tag_id AND (h.horizon IS NULL OR NEW.status_id >= h.horizon)
  ON CONFLICT DO NOTHING;
  FOR m IN SELECT tf.account_id FROM tag_follows tf JOIN users u ON u.account_id = tf.account_id
    WHERE tf.tag_id = NEW.tag_id AND random() < 1.0 / 128 LOOP
    PERFORM home_feed_trim(m);
  END LOOP;
  RETURN NULL;
END $$;

CREATE TRIGGER home_feeds_tag AFTER INSERT ON status_tags FOR EACH ROW EXECUTE FUNCTION home_feeds_of_tag();

/*
 * A local member follows a tag: its newest 800 public posts (not boosts, not history) at or above the member's
 * horizon come in; if it has that many, the horizon rises to the 800th, as for an account's follow (054). An
 * unfollow leaves the rows: they are candidates only, and the home rule no longer admits them.
 */
CREATE FUNCTION home_feeds_of_tag_follow() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  edge bigint;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM users u WHERE u.account_id = NEW.account_id) THEN
    RETURN NULL;
  END IF;
  INSERT INTO home_feeds (account_id, status_id)
  SELECT NEW.account_id, s.id FROM status_tags stg JOIN statuses s ON s.id = stg.status_id
  WHERE stg.tag_id = NEW.tag_id AND s.deleted_at IS NULL AND s.visibility = 0 AND s.reblog_of_id IS NULL AND NOT s.history
    AND s.id >= coalesce((SELECT h.horizon FROM home_feed_horizons h WHERE h.account_id = NEW.account_id), 0)
  ORDER BY stg.status_id DESC LIMIT 800
  ON CONFLICT DO NOTHING;
  SELECT s.id INTO edge FROM status_tags stg JOIN statuses s ON s.id = stg.status_id
  WHERE stg.tag_id = NEW.tag_id AND s.deleted_at IS NULL AND s.visibility = 0 AND s.reblog_of_id IS NULL AND NOT s.history
  ORDER BY stg.status_id DESC OFFSET 799 LIMIT 1;
  IF edge IS NOT NULL THEN
    PERFORM home_feed_raise(NEW.account_id, edge);
  END IF;
  PERFORM home_feed_trim(NEW.account_id);
  RETURN NULL;
END $$;

CREATE TRIGGER home_feeds_tag_follow AFTER INSERT ON tag_follows FOR EACH ROW EXECUTE FUNCTION home_feeds_of_tag_follow();
