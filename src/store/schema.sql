-- GENERATED, NOT APPLIED. The schema every migration in src/store/migrations/ leaves behind, read back from
-- PostgreSQL's catalog, so a table's current shape is found here in one place. Migrations remain the only way the
-- schema changes; test/store/schema.test.ts fails when this file and the migrations disagree.
-- Regenerate with: npm run schema

-- Sequences

CREATE SEQUENCE lemmy_comments_id_seq AS bigint START 1 INCREMENT 1 MINVALUE 1 MAXVALUE 9223372036854775807 CACHE 1 OWNED BY lemmy_comments.id;

CREATE SEQUENCE lemmy_communities_id_seq AS bigint START 1 INCREMENT 1 MINVALUE 1 MAXVALUE 9223372036854775807 CACHE 1 OWNED BY lemmy_communities.id;

CREATE SEQUENCE lemmy_instances_id_seq AS bigint START 1 INCREMENT 1 MINVALUE 1 MAXVALUE 9223372036854775807 CACHE 1 OWNED BY lemmy_instances.id;

CREATE SEQUENCE lemmy_persons_id_seq AS bigint START 1 INCREMENT 1 MINVALUE 1 MAXVALUE 9223372036854775807 CACHE 1 OWNED BY lemmy_persons.id;

CREATE SEQUENCE lemmy_posts_id_seq AS bigint START 1 INCREMENT 1 MINVALUE 1 MAXVALUE 9223372036854775807 CACHE 1 OWNED BY lemmy_posts.id;

CREATE SEQUENCE timestamp_id_seq AS bigint START 1 INCREMENT 1 MINVALUE 1 MAXVALUE 9223372036854775807 CACHE 1;

-- Functions

CREATE OR REPLACE FUNCTION public.account_cache_deleted()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  PERFORM pg_notify('stoa_cache', 'a:' || OLD.id::text);
  RETURN NULL;
END $function$;

CREATE OR REPLACE FUNCTION public.account_counts_add(account bigint, d_followers integer, d_following integer, d_statuses integer, last timestamp with time zone)
 RETURNS void
 LANGUAGE sql
AS $function$
  INSERT INTO account_counts AS c (account_id, followers, following, statuses, last_status_at)
  VALUES (account, d_followers, d_following, d_statuses, last)
  ON CONFLICT (account_id) DO UPDATE SET followers = c.followers + d_followers, following = c.following + d_following,
    statuses = c.statuses + d_statuses, last_status_at = greatest(c.last_status_at, last)
$function$;

CREATE OR REPLACE FUNCTION public.account_counts_of_follow()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
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
END $function$;

CREATE OR REPLACE FUNCTION public.account_counts_of_status()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
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
END $function$;

CREATE OR REPLACE FUNCTION public.announcement_reactions_streamed()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE r announcement_reactions%ROWTYPE;
BEGIN
  r := CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
  IF EXISTS (SELECT 1 FROM announcements WHERE id = r.announcement_id AND published) THEN
    PERFORM pg_notify('stoa_stream',
      json_build_object('event', 'announcement.reaction', 'announcement', r.announcement_id::text, 'name', r.name)::text);
  END IF;
  RETURN NULL;
END $function$;

CREATE OR REPLACE FUNCTION public.announcements_streamed()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  IF TG_OP = 'DELETE' THEN
    IF OLD.published THEN
      PERFORM pg_notify('stoa_stream', json_build_object('event', 'announcement.delete', 'announcement', OLD.id::text)::text);
    END IF;
  ELSIF NEW.published THEN
    PERFORM pg_notify('stoa_stream', json_build_object('event', 'announcement', 'announcement', NEW.id::text)::text);
  ELSIF TG_OP = 'UPDATE' AND OLD.published THEN
    PERFORM pg_notify('stoa_stream', json_build_object('event', 'announcement.delete', 'announcement', OLD.id::text)::text);
  END IF;
  RETURN NULL;
END $function$;

CREATE OR REPLACE FUNCTION public.apply_notification_policy()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE
  p record;
  sender record;
  following boolean;
  votes text[] := '{}';
BEGIN
  IF NEW.type IN ('admin.report', 'admin.sign_up', 'poll', 'update', 'moderation_warning') THEN RETURN NEW; END IF;
  IF EXISTS (SELECT 1 FROM notification_permissions WHERE account_id = NEW.account_id AND from_account_id = NEW.from_account_id) THEN
    RETURN NEW;
  END IF;
  SELECT coalesce(np.for_not_following, 'accept') AS not_following, coalesce(np.for_not_followers, 'accept') AS not_followers,
         coalesce(np.for_new_accounts, 'accept') AS new_accounts, coalesce(np.for_private_mentions, 'filter') AS private_mentions,
         coalesce(np.for_limited_accounts, 'filter') AS limited_accounts
    INTO p FROM (SELECT 1) one LEFT JOIN notification_policies np ON np.account_id = NEW.account_id;
  SELECT a.created_at, a.silenced_at IS NOT NULL OR (a.domain IS NOT NULL AND EXISTS (SELECT 1 FROM domain_blocks d
           WHERE d.severity = 'silence' AND (lower(a.domain) = lower(d.domain) OR right(lower(a.domain), length(d.domain) + 1) = '.' || lower(d.domain)))) AS limited
    INTO sender FROM accounts a WHERE a.id = NEW.from_account_id;
  following := EXISTS (SELECT 1 FROM follows f WHERE f.account_id = NEW.account_id AND f.target_account_id = NEW.from_account_id);
  IF p.not_following <> 'accept' AND NOT following THEN votes := votes || p.not_following; END IF;
  -- A follower counts once they have followed for three days (Mastodon's NEW_FOLLOWER_THRESHOLD).
  IF p.not_followers <> 'accept' AND NOT EXISTS (SELECT 1 FROM follows f WHERE f.account_id = NEW.from_account_id
       AND f.target_account_id = NEW.account_id AND f.created_at <= now() - interval '3 days') THEN
    votes := votes || p.not_followers;
  END IF;
  IF p.new_accounts <> 'accept' AND sender.created_at > now() - interval '30 days' THEN votes := votes || p.new_accounts; END IF;
  -- A direct mention from someone not followed, unless it answers one of the member's own posts.
  IF p.private_mentions <> 'accept' AND NEW.type = 'mention' AND NOT following AND EXISTS (SELECT 1 FROM statuses s
       WHERE s.id = NEW.status_id AND s.visibility = 3 AND s.in_reply_to_account_id IS DISTINCT FROM NEW.account_id) THEN
    votes := votes || p.private_mentions;
  END IF;
  IF p.limited_accounts <> 'accept' AND sender.limited AND NOT following THEN votes := votes || p.limited_accounts; END IF;
  IF 'drop' = ANY (votes) THEN RETURN NULL; END IF;
  NEW.filtered := 'filter' = ANY (votes);
  RETURN NEW;
END $function$;

CREATE OR REPLACE FUNCTION public.card_jobs_wake()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  PERFORM pg_notify('stoa_work', 'cards');
  RETURN NULL;
END $function$;

CREATE OR REPLACE FUNCTION public.custom_filter_parts_changed()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  PERFORM filters_changed((SELECT account_id FROM custom_filters
    WHERE id = CASE WHEN TG_OP = 'DELETE' THEN OLD.custom_filter_id ELSE NEW.custom_filter_id END));
  RETURN NULL;
END $function$;

CREATE OR REPLACE FUNCTION public.custom_filters_changed()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  PERFORM filters_changed(CASE WHEN TG_OP = 'DELETE' THEN OLD.account_id ELSE NEW.account_id END);
  RETURN NULL;
END $function$;

CREATE OR REPLACE FUNCTION public.drop_endorsement_of_follow()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  DELETE FROM account_pins WHERE account_id = OLD.account_id AND target_account_id = OLD.target_account_id;
  RETURN NULL;
END $function$;

CREATE OR REPLACE FUNCTION public.drop_revoked_push_subscription()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  DELETE FROM web_push_subscriptions WHERE access_token_id = NEW.id;
  RETURN NULL;
END $function$;

CREATE OR REPLACE FUNCTION public.filters_changed(account bigint)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
BEGIN
  IF account IS NOT NULL THEN
    PERFORM pg_notify('stoa_stream', json_build_object('event', 'filters_changed', 'account', account::text)::text);
    PERFORM pg_notify('stoa_cache', 'f:' || account::text);
  END IF;
END $function$;

CREATE OR REPLACE FUNCTION public.follows_follower_remote()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  NEW.follower_remote := EXISTS (SELECT 1 FROM accounts a WHERE a.id = NEW.account_id AND a.domain IS NOT NULL);
  RETURN NEW;
END $function$;

CREATE OR REPLACE FUNCTION public.follows_of_account_domain()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  UPDATE follows SET follower_remote = (NEW.domain IS NOT NULL) WHERE account_id = NEW.id;
  RETURN NULL;
END $function$;

CREATE OR REPLACE FUNCTION public.gather_notification_request()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  INSERT INTO notification_requests AS r (account_id, from_account_id, last_status_id, notifications_count)
  VALUES (NEW.account_id, NEW.from_account_id, NEW.status_id, 1)
  ON CONFLICT (account_id, from_account_id) DO UPDATE
    SET notifications_count = r.notifications_count + 1, last_status_id = coalesce(EXCLUDED.last_status_id, r.last_status_id), updated_at = now();
  RETURN NULL;
END $function$;

CREATE OR REPLACE FUNCTION public.home_feed_fan_out(st bigint, author bigint, vis smallint)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
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
END $function$;

CREATE OR REPLACE FUNCTION public.home_feed_fan_out_threshold()
 RETURNS integer
 LANGUAGE sql
 STABLE
AS $function$
  SELECT coalesce(nullif(current_setting('stoa.home_fan_out_threshold', true), '')::integer, 200);
$function$;

CREATE OR REPLACE FUNCTION public.home_feed_job_batch(st bigint, owner text, size integer, lease_ms integer)
 RETURNS text
 LANGUAGE plpgsql
AS $function$
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
END $function$;

CREATE OR REPLACE FUNCTION public.home_feed_jobs_wake()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  PERFORM pg_notify('stoa_work', 'homefeed');
  RETURN NULL;
END $function$;

CREATE OR REPLACE FUNCTION public.home_feed_raise(member bigint, edge bigint)
 RETURNS void
 LANGUAGE sql
AS $function$
  INSERT INTO home_feed_horizons AS h (account_id, horizon) VALUES (member, edge)
  ON CONFLICT (account_id) DO UPDATE SET horizon = greatest(h.horizon, excluded.horizon);
  DELETE FROM home_feeds WHERE account_id = member AND status_id < edge;
$function$;

CREATE OR REPLACE FUNCTION public.home_feed_trim(member bigint)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
DECLARE
  edge bigint;
BEGIN
  SELECT status_id INTO edge FROM home_feeds WHERE account_id = member ORDER BY status_id DESC OFFSET 799 LIMIT 1;
  IF edge IS NOT NULL THEN
    PERFORM home_feed_raise(member, edge);
  END IF;
END $function$;

CREATE OR REPLACE FUNCTION public.home_feeds_of_follow()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
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
END $function$;

CREATE OR REPLACE FUNCTION public.home_feeds_of_mention()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  INSERT INTO home_feeds (account_id, status_id)
  SELECT NEW.account_id, s.id FROM statuses s
  WHERE s.id = NEW.status_id AND s.visibility = 3 AND NOT s.history AND s.deleted_at IS NULL
    AND EXISTS (SELECT 1 FROM users u WHERE u.account_id = NEW.account_id)
    AND s.id >= coalesce((SELECT h.horizon FROM home_feed_horizons h WHERE h.account_id = NEW.account_id), 0)
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END $function$;

CREATE OR REPLACE FUNCTION public.home_feeds_of_status()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  PERFORM home_feed_fan_out(NEW.id, NEW.account_id, NEW.visibility::smallint);
  RETURN NULL;
END $function$;

CREATE OR REPLACE FUNCTION public.home_feeds_of_tag()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
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
END $function$;

CREATE OR REPLACE FUNCTION public.home_feeds_of_tag_follow()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
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
END $function$;

CREATE OR REPLACE FUNCTION public.lemmy_comments_count()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
  BEGIN
    UPDATE lemmy_posts p SET comments = p.comments + 1,
        newest_comment_time = greatest(p.newest_comment_time, NEW.published),
        newest_comment_time_necro = n.necro,
        hot_rank_active = lemmy_hot_rank(p.score, n.necro)
      FROM (SELECT CASE
                     WHEN p2.published > NEW.published - interval '2 days'
                       AND (SELECT account_id FROM statuses WHERE id = p2.status_id)
                           IS DISTINCT FROM (SELECT account_id FROM statuses WHERE id = NEW.status_id)
                       THEN greatest(p2.newest_comment_time_necro, NEW.published)
                     ELSE p2.newest_comment_time_necro
                   END AS necro
            FROM lemmy_posts p2 WHERE p2.id = NEW.post_id) n
      WHERE p.id = NEW.post_id;
    UPDATE lemmy_comments SET child_count = child_count + 1
      WHERE post_id = NEW.post_id AND id <> NEW.id AND NEW.path LIKE path || '.%';
    RETURN NULL;
  END
  $function$;

CREATE OR REPLACE FUNCTION public.lemmy_comments_rank()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
  BEGIN
    NEW.hot_rank := lemmy_hot_rank(NEW.score, NEW.published);
    RETURN NEW;
  END
  $function$;

CREATE OR REPLACE FUNCTION public.lemmy_comments_soft_uncount()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
  DECLARE
    c lemmy_comments%ROWTYPE;
    d integer := CASE WHEN NEW.deleted_at IS NULL THEN 1 ELSE -1 END;
  BEGIN
    SELECT * INTO c FROM lemmy_comments WHERE status_id = NEW.id;
    IF NOT FOUND THEN RETURN NULL; END IF;
    UPDATE lemmy_posts SET comments = greatest(comments + d, 0) WHERE id = c.post_id;
    UPDATE lemmy_comments SET child_count = greatest(child_count + d, 0)
      WHERE post_id = c.post_id AND id <> c.id AND c.path LIKE path || '.%';
    RETURN NULL;
  END
  $function$;

CREATE OR REPLACE FUNCTION public.lemmy_comments_uncount()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
  BEGIN
    -- Counted down already when its status was deleted.
    IF EXISTS (SELECT 1 FROM statuses WHERE id = OLD.status_id AND deleted_at IS NOT NULL) THEN RETURN NULL; END IF;
    UPDATE lemmy_posts SET comments = greatest(comments - 1, 0) WHERE id = OLD.post_id;
    UPDATE lemmy_comments SET child_count = greatest(child_count - 1, 0)
      WHERE post_id = OLD.post_id AND id <> OLD.id AND OLD.path LIKE path || '.%';
    RETURN NULL;
  END
  $function$;

CREATE OR REPLACE FUNCTION public.lemmy_hot_rank(score integer, published timestamp with time zone)
 RETURNS double precision
 LANGUAGE sql
 STABLE
AS $function$
    SELECT CASE
      WHEN now() - published > interval '0' AND now() - published < interval '7 days'
        THEN log(greatest(2, score + 2)::double precision) / power(extract(epoch FROM (now() - published))::double precision / 3600 + 2, 1.8)
      ELSE 0.0
    END
  $function$;

CREATE OR REPLACE FUNCTION public.lemmy_posts_rank()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
  BEGIN
    NEW.newest_comment_time_necro := coalesce(NEW.newest_comment_time_necro, NEW.published);
    NEW.hot_rank := lemmy_hot_rank(NEW.score, NEW.published);
    NEW.hot_rank_active := lemmy_hot_rank(NEW.score, NEW.newest_comment_time_necro);
    RETURN NEW;
  END
  $function$;

CREATE OR REPLACE FUNCTION public.lemmy_votes_count()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
  DECLARE
    sid bigint := COALESCE(NEW.status_id, OLD.status_id);
    up integer := (CASE WHEN TG_OP <> 'DELETE' AND NEW.score = 1 THEN 1 ELSE 0 END) - (CASE WHEN TG_OP <> 'INSERT' AND OLD.score = 1 THEN 1 ELSE 0 END);
    down integer := (CASE WHEN TG_OP <> 'DELETE' AND NEW.score = -1 THEN 1 ELSE 0 END) - (CASE WHEN TG_OP <> 'INSERT' AND OLD.score = -1 THEN 1 ELSE 0 END);
  BEGIN
    IF up = 0 AND down = 0 THEN RETURN NULL; END IF;
    UPDATE lemmy_posts SET upvotes = upvotes + up, downvotes = downvotes + down, score = score + up - down,
        hot_rank = lemmy_hot_rank(score + up - down, published),
        hot_rank_active = lemmy_hot_rank(score + up - down, newest_comment_time_necro)
      WHERE status_id = sid;
    IF NOT FOUND THEN
      UPDATE lemmy_comments SET upvotes = upvotes + up, downvotes = downvotes + down, score = score + up - down,
          hot_rank = lemmy_hot_rank(score + up - down, published)
        WHERE status_id = sid;
    END IF;
    RETURN NULL;
  END
  $function$;

CREATE OR REPLACE FUNCTION public.list_feed_raise(l bigint, edge bigint)
 RETURNS void
 LANGUAGE sql
AS $function$
  INSERT INTO list_feed_horizons AS h (list_id, horizon) VALUES (l, edge)
  ON CONFLICT (list_id) DO UPDATE SET horizon = greatest(h.horizon, excluded.horizon);
  DELETE FROM list_feeds WHERE list_id = l AND status_id < edge;
$function$;

CREATE OR REPLACE FUNCTION public.list_feed_trim(l bigint)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
DECLARE
  edge bigint;
BEGIN
  SELECT status_id INTO edge FROM list_feeds WHERE list_id = l ORDER BY status_id DESC OFFSET 799 LIMIT 1;
  IF edge IS NOT NULL THEN
    PERFORM list_feed_raise(l, edge);
  END IF;
END $function$;

CREATE OR REPLACE FUNCTION public.list_feeds_of_member()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
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
END $function$;

CREATE OR REPLACE FUNCTION public.list_feeds_of_status()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
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
END $function$;

CREATE OR REPLACE FUNCTION public.page_muted_threads(ids bigint[], viewer bigint)
 RETURNS text[]
 LANGUAGE sql
 STABLE
AS $function$
  SELECT ARRAY(SELECT DISTINCT i::text FROM unnest(ids) i WHERE thread_root(i) IN (SELECT root_status_id FROM thread_mutes WHERE account_id = viewer))
$function$;

CREATE OR REPLACE FUNCTION public.page_own_votes(ids bigint[], viewer bigint)
 RETURNS json
 LANGUAGE sql
 STABLE
AS $function$
  SELECT json_agg(x) FROM (SELECT v.poll_id::text AS poll_id, array_agg(v.choice ORDER BY v.choice) AS choices FROM poll_votes v
    WHERE v.account_id = viewer AND v.poll_id = ANY(ARRAY(SELECT p.id FROM polls p WHERE p.status_id = ANY(ids))) GROUP BY v.poll_id) x
$function$;

CREATE OR REPLACE FUNCTION public.page_polls(ids bigint[])
 RETURNS json
 LANGUAGE sql
 STABLE
AS $function$
  SELECT json_agg(x) FROM (SELECT p.id::text AS id, p.status_id::text AS status_id, p.account_id::text AS account_id, p.options, p.multiple,
      p.hide_totals, p.expires_at, p.remote_counts, p.remote_voters,
      ARRAY(SELECT (SELECT count(*)::int FROM poll_votes v WHERE v.poll_id = p.id AND v.choice = i - 1) FROM generate_subscripts(p.options, 1) AS i ORDER BY i) AS counts,
      (SELECT count(DISTINCT account_id)::int FROM poll_votes v WHERE v.poll_id = p.id) AS voters
    FROM polls p WHERE p.status_id = ANY(ids)) x
$function$;

CREATE OR REPLACE FUNCTION public.page_reactions(ids bigint[], viewer bigint)
 RETURNS json
 LANGUAGE sql
 STABLE
AS $function$
  SELECT json_agg(rx ORDER BY rx.status_id, rx.n DESC, rx.first) FROM (SELECT r.status_id::text AS status_id, r.emoji, min(r.emoji_url) AS url,
      count(*)::int AS n, coalesce(bool_or(r.account_id = viewer), false) AS me, (array_agg(r.account_id::text ORDER BY r.id))[1:40] AS accounts, min(r.id) AS first
    FROM status_reactions r WHERE r.status_id = ANY(ids)
      AND NOT EXISTS (SELECT 1 FROM blocks b WHERE (b.account_id = viewer AND b.target_account_id = r.account_id)
        OR (b.account_id = r.account_id AND b.target_account_id = viewer))
      AND NOT EXISTS (SELECT 1 FROM mutes mu WHERE mu.account_id = viewer AND mu.target_account_id = r.account_id
        AND (mu.expires_at IS NULL OR mu.expires_at > now()))
    GROUP BY r.status_id, r.emoji) rx
$function$;

CREATE OR REPLACE FUNCTION public.preview_cards_changed()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  PERFORM pg_notify('stoa_cache', 's:' || c.status_id::text) FROM status_cards c WHERE c.card_id = NEW.id;
  RETURN NULL;
END $function$;

CREATE OR REPLACE FUNCTION public.queue_pushes()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE
  h record;
BEGIN
  FOR h IN
    WITH queued AS (
      INSERT INTO push_deliveries (subscription_id, notification_id, host)
      SELECT s.id, n.id, s.host FROM new_notifications n JOIN web_push_subscriptions s ON s.account_id = n.account_id
      WHERE NOT n.filtered AND n.type = ANY (s.alerts) AND (s.policy = 'all'
        OR (s.policy = 'followed' AND EXISTS (SELECT 1 FROM follows f WHERE f.account_id = n.account_id AND f.target_account_id = n.from_account_id))
        OR (s.policy = 'follower' AND EXISTS (SELECT 1 FROM follows f WHERE f.account_id = n.from_account_id AND f.target_account_id = n.account_id)))
      ON CONFLICT DO NOTHING RETURNING host
    ) SELECT DISTINCT host FROM queued
  LOOP
    PERFORM pg_notify('stoa_work', 'push:' || h.host);
  END LOOP;
  RETURN NULL;
END $function$;

CREATE OR REPLACE FUNCTION public.release_notification_request()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  DELETE FROM notification_requests WHERE account_id = OLD.account_id AND from_account_id = OLD.from_account_id AND notifications_count <= 1;
  UPDATE notification_requests SET notifications_count = notifications_count - 1
    WHERE account_id = OLD.account_id AND from_account_id = OLD.from_account_id;
  RETURN NULL;
END $function$;

CREATE OR REPLACE FUNCTION public.scheduled_statuses_wake()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  PERFORM pg_notify('stoa_work', 'scheduled');
  RETURN NULL;
END $function$;

CREATE OR REPLACE FUNCTION public.status_cache_account()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  PERFORM pg_notify('stoa_cache', 'a:' || NEW.id::text);
  RETURN NULL;
END $function$;

CREATE OR REPLACE FUNCTION public.status_cache_media()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  IF TG_OP <> 'INSERT' AND OLD.status_id IS NOT NULL THEN
    PERFORM pg_notify('stoa_cache', 's:' || OLD.status_id::text);
  END IF;
  IF TG_OP <> 'DELETE' AND NEW.status_id IS NOT NULL AND (TG_OP = 'INSERT' OR NEW.status_id IS DISTINCT FROM OLD.status_id) THEN
    PERFORM pg_notify('stoa_cache', 's:' || NEW.status_id::text);
  END IF;
  RETURN NULL;
END $function$;

CREATE OR REPLACE FUNCTION public.status_cache_poll()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  PERFORM pg_notify('stoa_cache', 's:' || (CASE WHEN TG_OP = 'DELETE' THEN OLD.status_id ELSE NEW.status_id END)::text);
  RETURN NULL;
END $function$;

CREATE OR REPLACE FUNCTION public.status_cache_status()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  PERFORM pg_notify('stoa_cache', 's:' || OLD.id::text);
  RETURN NULL;
END $function$;

CREATE OR REPLACE FUNCTION public.status_cards_changed()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  PERFORM pg_notify('stoa_cache', 's:' || NEW.status_id::text);
  IF EXISTS (SELECT 1 FROM statuses s WHERE s.id = NEW.status_id AND NOT s.history AND s.deleted_at IS NULL) THEN
    PERFORM pg_notify('stoa_stream', json_build_object('event', 'status.update', 'status', NEW.status_id::text)::text);
  END IF;
  RETURN NULL;
END $function$;

CREATE OR REPLACE FUNCTION public.status_counts_add(status bigint, d_replies integer, d_reblogs integer, d_favourites integer, d_quotes integer)
 RETURNS void
 LANGUAGE sql
AS $function$
  INSERT INTO status_counts AS c (status_id, replies, reblogs, favourites, quotes) VALUES (status, d_replies, d_reblogs, d_favourites, d_quotes)
  ON CONFLICT (status_id) DO UPDATE SET replies = c.replies + d_replies, reblogs = c.reblogs + d_reblogs,
    favourites = c.favourites + d_favourites, quotes = c.quotes + d_quotes
$function$;

CREATE OR REPLACE FUNCTION public.status_counts_of_favourite()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  IF TG_OP = 'INSERT' THEN PERFORM status_counts_add(NEW.status_id, 0, 0, 1, 0);
  ELSE UPDATE status_counts SET favourites = favourites - 1 WHERE status_id = OLD.status_id; END IF;
  RETURN NULL;
END $function$;

CREATE OR REPLACE FUNCTION public.status_counts_of_status()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
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
END $function$;

CREATE OR REPLACE FUNCTION public.status_readable(sid bigint, viewer bigint)
 RETURNS boolean
 LANGUAGE sql
 STABLE
AS $function$
  SELECT EXISTS (SELECT 1 FROM statuses s WHERE s.id = sid AND (s.deleted_at IS NULL AND NOT EXISTS (SELECT 1 FROM accounts sx WHERE sx.id = s.account_id AND sx.suspended_at IS NOT NULL) AND (s.visibility <= 1 OR s.account_id = viewer
      OR (s.visibility = 2 AND EXISTS (SELECT 1 FROM follows vf WHERE vf.account_id = viewer AND vf.target_account_id = s.account_id))
      OR EXISTS (SELECT 1 FROM status_mentions vm WHERE vm.status_id = s.id AND vm.account_id = viewer))
    AND NOT EXISTS (SELECT 1 FROM blocks vb WHERE vb.account_id = s.account_id AND vb.target_account_id = viewer)))
$function$;

CREATE OR REPLACE FUNCTION public.stream_conversation_event()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  IF TG_OP = 'INSERT' OR NEW.last_status_id > OLD.last_status_id THEN
    PERFORM pg_notify('stoa_stream', json_build_object('event', 'conversation', 'conversation', NEW.id::text, 'account', NEW.account_id::text)::text);
  END IF;
  RETURN NULL;
END $function$;

CREATE OR REPLACE FUNCTION public.stream_notification_event()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  PERFORM pg_notify('stoa_stream', json_build_object('event', 'notification', 'notification', NEW.id::text, 'account', NEW.account_id::text)::text);
  RETURN NULL;
END $function$;

CREATE OR REPLACE FUNCTION public.stream_status_event()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  IF TG_OP = 'INSERT' THEN
    IF NOT NEW.history AND NEW.deleted_at IS NULL THEN
      PERFORM pg_notify('stoa_stream', json_build_object('event', 'update', 'status', NEW.id::text)::text);
    END IF;
  ELSIF OLD.deleted_at IS NULL AND NEW.deleted_at IS NOT NULL THEN
    -- The row stays (soft delete), but the audience is named here too: who followed the author may change later.
    PERFORM pg_notify('stoa_stream', json_build_object('event', 'delete', 'status', NEW.id::text, 'account', NEW.account_id::text,
      'visibility', NEW.visibility)::text);
  ELSIF NEW.deleted_at IS NULL AND OLD.history AND NOT NEW.history THEN
    PERFORM pg_notify('stoa_stream', json_build_object('event', 'update', 'status', NEW.id::text)::text);
  ELSIF NEW.deleted_at IS NULL AND NOT NEW.history AND NEW.edited_at IS DISTINCT FROM OLD.edited_at THEN
    PERFORM pg_notify('stoa_stream', json_build_object('event', 'status.update', 'status', NEW.id::text)::text);
  END IF;
  RETURN NULL;
END $function$;

CREATE OR REPLACE FUNCTION public.thread_root(status bigint)
 RETURNS bigint
 LANGUAGE sql
 STABLE
AS $function$
  WITH RECURSIVE up (id, parent, depth) AS (
    SELECT id, in_reply_to_id, 0 FROM statuses WHERE id = status
    UNION ALL
    SELECT s.id, s.in_reply_to_id, up.depth + 1 FROM statuses s JOIN up ON s.id = up.parent WHERE up.depth < 1000
  )
  SELECT id FROM up ORDER BY depth DESC LIMIT 1
$function$;

CREATE OR REPLACE FUNCTION public.timestamp_id(ts timestamp with time zone)
 RETURNS bigint
 LANGUAGE sql
AS $function$ SELECT ((floor(extract(epoch FROM ts) * 1000)::bigint) << 16) | (nextval('timestamp_id_seq') & 65535) $function$;

-- Tables

CREATE TABLE account_conversations (
  id              bigint DEFAULT timestamp_id(now()) NOT NULL,
  account_id      bigint NOT NULL,
  thread          text NOT NULL,
  participant_ids bigint[] NOT NULL,
  status_ids      bigint[] NOT NULL,
  last_status_id  bigint NOT NULL,
  unread          boolean DEFAULT false NOT NULL,
  CONSTRAINT account_conversations_pkey PRIMARY KEY (id),
  CONSTRAINT account_conversations_account_id_thread_participant_ids_key UNIQUE (account_id, thread, participant_ids),
  CONSTRAINT account_conversations_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE
);
CREATE INDEX account_conversations_list ON account_conversations USING btree (account_id, last_status_id DESC);
CREATE INDEX account_conversations_statuses ON account_conversations USING gin (status_ids);
CREATE TRIGGER account_conversations_stream AFTER INSERT OR UPDATE OF last_status_id ON account_conversations FOR EACH ROW EXECUTE FUNCTION stream_conversation_event();

CREATE TABLE account_counts (
  account_id     bigint NOT NULL,
  followers      integer DEFAULT 0 NOT NULL,
  following      integer DEFAULT 0 NOT NULL,
  statuses       integer DEFAULT 0 NOT NULL,
  last_status_at timestamp with time zone,
  CONSTRAINT account_counts_pkey PRIMARY KEY (account_id)
);

CREATE TABLE account_domain_blocks (
  id         bigint DEFAULT timestamp_id(now()) NOT NULL,
  account_id bigint NOT NULL,
  domain     text NOT NULL,
  created_at timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT account_domain_blocks_pkey PRIMARY KEY (id),
  CONSTRAINT account_domain_blocks_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX account_domain_blocks_account_domain ON account_domain_blocks USING btree (account_id, domain);

CREATE TABLE account_notes (
  account_id        bigint NOT NULL,
  target_account_id bigint NOT NULL,
  comment           text NOT NULL,
  created_at        timestamp with time zone DEFAULT now() NOT NULL,
  updated_at        timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT account_notes_pkey PRIMARY KEY (account_id, target_account_id),
  CONSTRAINT account_notes_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT account_notes_target_account_id_fkey FOREIGN KEY (target_account_id) REFERENCES accounts(id) ON DELETE CASCADE
);
CREATE INDEX account_notes_target ON account_notes USING btree (target_account_id);

CREATE TABLE account_pins (
  id                bigint DEFAULT timestamp_id(now()) NOT NULL,
  account_id        bigint NOT NULL,
  target_account_id bigint NOT NULL,
  created_at        timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT account_pins_pkey PRIMARY KEY (id),
  CONSTRAINT account_pins_account_id_target_account_id_key UNIQUE (account_id, target_account_id),
  CONSTRAINT account_pins_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT account_pins_target_account_id_fkey FOREIGN KEY (target_account_id) REFERENCES accounts(id) ON DELETE CASCADE
);
CREATE INDEX account_pins_target ON account_pins USING btree (target_account_id);

CREATE TABLE accounts (
  id                     bigint DEFAULT timestamp_id(now()) NOT NULL,
  username               text NOT NULL,
  domain                 text,
  display_name           text DEFAULT ''::text NOT NULL,
  note                   text DEFAULT ''::text NOT NULL,
  locked                 boolean DEFAULT false NOT NULL,
  bot                    boolean DEFAULT false NOT NULL,
  discoverable           boolean,
  created_at             timestamp with time zone DEFAULT now() NOT NULL,
  updated_at             timestamp with time zone DEFAULT now() NOT NULL,
  uri                    text,
  url                    text,
  actor_type             text DEFAULT 'Person'::text NOT NULL,
  inbox_url              text,
  shared_inbox_url       text,
  outbox_url             text,
  followers_url          text,
  following_url          text,
  featured_url           text,
  avatar_remote_url      text,
  header_remote_url      text,
  fields                 jsonb DEFAULT '[]'::jsonb NOT NULL,
  attachment             jsonb DEFAULT '[]'::jsonb NOT NULL,
  also_known_as          text[] DEFAULT '{}'::text[] NOT NULL,
  moved_to_uri           text,
  public_key_id          text,
  public_key_pem         text,
  private_key_pem        text,
  remote_followers_count integer,
  remote_following_count integer,
  remote_statuses_count  integer,
  published_at           timestamp with time zone,
  fetched_at             timestamp with time zone,
  deleted_at             timestamp with time zone,
  instance_actor         boolean DEFAULT false NOT NULL,
  avatar_file            text,
  header_file            text,
  suspended_at           timestamp with time zone,
  silenced_at            timestamp with time zone,
  sensitized_at          timestamp with time zone,
  CONSTRAINT accounts_pkey PRIMARY KEY (id)
);
CREATE UNIQUE INDEX accounts_avatar_file ON accounts USING btree (avatar_file) WHERE (avatar_file IS NOT NULL);
CREATE INDEX accounts_deleted ON accounts USING btree (id) WHERE (deleted_at IS NOT NULL);
CREATE INDEX accounts_domain ON accounts USING btree (lower(domain));
CREATE UNIQUE INDEX accounts_handle ON accounts USING btree (lower(username), COALESCE(lower(domain), ''::text));
CREATE UNIQUE INDEX accounts_header_file ON accounts USING btree (header_file) WHERE (header_file IS NOT NULL);
CREATE UNIQUE INDEX accounts_public_key_id ON accounts USING btree (public_key_id) WHERE ((public_key_id IS NOT NULL) AND (domain IS NOT NULL));
CREATE INDEX accounts_search ON accounts USING gin ((((setweight(to_tsvector('simple'::regconfig, display_name), 'A'::"char") || setweight(to_tsvector('simple'::regconfig, username), 'B'::"char")) || setweight(to_tsvector('simple'::regconfig, COALESCE(domain, ''::text)), 'C'::"char"))));
CREATE UNIQUE INDEX accounts_single_instance_actor ON accounts USING btree (instance_actor) WHERE instance_actor;
CREATE INDEX accounts_suspended ON accounts USING btree (id) WHERE (suspended_at IS NOT NULL);
CREATE UNIQUE INDEX accounts_uri ON accounts USING btree (uri) WHERE (uri IS NOT NULL);
CREATE INDEX accounts_username_prefix ON accounts USING btree (lower(username) text_pattern_ops);
CREATE TRIGGER accounts_cache AFTER UPDATE ON accounts FOR EACH ROW WHEN (old.username IS DISTINCT FROM new.username OR old.domain IS DISTINCT FROM new.domain OR old.display_name IS DISTINCT FROM new.display_name OR old.note IS DISTINCT FROM new.note OR old.locked IS DISTINCT FROM new.locked OR old.bot IS DISTINCT FROM new.bot OR old.discoverable IS DISTINCT FROM new.discoverable OR old.created_at IS DISTINCT FROM new.created_at OR old.uri IS DISTINCT FROM new.uri OR old.url IS DISTINCT FROM new.url OR old.actor_type IS DISTINCT FROM new.actor_type OR old.avatar_remote_url IS DISTINCT FROM new.avatar_remote_url OR old.header_remote_url IS DISTINCT FROM new.header_remote_url OR old.avatar_file IS DISTINCT FROM new.avatar_file OR old.header_file IS DISTINCT FROM new.header_file OR old.fields IS DISTINCT FROM new.fields OR old.remote_followers_count IS DISTINCT FROM new.remote_followers_count OR old.remote_following_count IS DISTINCT FROM new.remote_following_count OR old.remote_statuses_count IS DISTINCT FROM new.remote_statuses_count OR old.published_at IS DISTINCT FROM new.published_at OR old.deleted_at IS DISTINCT FROM new.deleted_at OR old.suspended_at IS DISTINCT FROM new.suspended_at OR old.silenced_at IS DISTINCT FROM new.silenced_at OR old.sensitized_at IS DISTINCT FROM new.sensitized_at) EXECUTE FUNCTION status_cache_account();
CREATE TRIGGER accounts_cache_deleted AFTER DELETE ON accounts FOR EACH ROW EXECUTE FUNCTION account_cache_deleted();
CREATE TRIGGER follows_account_domain AFTER UPDATE OF domain ON accounts FOR EACH ROW WHEN ((old.domain IS NULL) IS DISTINCT FROM (new.domain IS NULL)) EXECUTE FUNCTION follows_of_account_domain();

CREATE TABLE announcement_dismissals (
  account_id      bigint NOT NULL,
  announcement_id bigint NOT NULL,
  created_at      timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT announcement_dismissals_pkey PRIMARY KEY (account_id, announcement_id),
  CONSTRAINT announcement_dismissals_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT announcement_dismissals_announcement_id_fkey FOREIGN KEY (announcement_id) REFERENCES announcements(id) ON DELETE CASCADE
);
CREATE INDEX announcement_dismissals_announcement ON announcement_dismissals USING btree (announcement_id);

CREATE TABLE announcement_reactions (
  announcement_id bigint NOT NULL,
  account_id      bigint NOT NULL,
  name            text NOT NULL,
  created_at      timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT announcement_reactions_pkey PRIMARY KEY (announcement_id, account_id, name),
  CONSTRAINT announcement_reactions_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT announcement_reactions_announcement_id_fkey FOREIGN KEY (announcement_id) REFERENCES announcements(id) ON DELETE CASCADE,
  CONSTRAINT announcement_reactions_name_check CHECK (name <> ''::text)
);
CREATE INDEX announcement_reactions_account ON announcement_reactions USING btree (account_id);
CREATE TRIGGER announcement_reactions_streamed AFTER INSERT OR DELETE ON announcement_reactions FOR EACH ROW EXECUTE FUNCTION announcement_reactions_streamed();

CREATE TABLE announcements (
  id           bigint DEFAULT timestamp_id(now()) NOT NULL,
  text         text NOT NULL,
  published    boolean DEFAULT false NOT NULL,
  all_day      boolean DEFAULT false NOT NULL,
  starts_at    timestamp with time zone,
  ends_at      timestamp with time zone,
  published_at timestamp with time zone,
  created_at   timestamp with time zone DEFAULT now() NOT NULL,
  updated_at   timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT announcements_pkey PRIMARY KEY (id),
  CONSTRAINT announcements_check CHECK (starts_at IS NULL OR ends_at IS NULL OR ends_at > starts_at),
  CONSTRAINT announcements_text_check CHECK (text <> ''::text)
);
CREATE INDEX announcements_published ON announcements USING btree (published_at) WHERE published;
CREATE TRIGGER announcements_streamed AFTER INSERT OR DELETE OR UPDATE ON announcements FOR EACH ROW EXECUTE FUNCTION announcements_streamed();

CREATE TABLE blocks (
  id                bigint DEFAULT timestamp_id(now()) NOT NULL,
  account_id        bigint NOT NULL,
  target_account_id bigint NOT NULL,
  uri               text,
  created_at        timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT blocks_pkey PRIMARY KEY (id),
  CONSTRAINT blocks_account_id_target_account_id_key UNIQUE (account_id, target_account_id),
  CONSTRAINT blocks_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT blocks_target_account_id_fkey FOREIGN KEY (target_account_id) REFERENCES accounts(id) ON DELETE CASCADE
);
CREATE INDEX blocks_target_account ON blocks USING btree (target_account_id, account_id);

CREATE TABLE bookmarks (
  id         bigint DEFAULT timestamp_id(now()) NOT NULL,
  account_id bigint NOT NULL,
  status_id  bigint NOT NULL,
  CONSTRAINT bookmarks_pkey PRIMARY KEY (id),
  CONSTRAINT bookmarks_account_id_status_id_key UNIQUE (account_id, status_id),
  CONSTRAINT bookmarks_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT bookmarks_status_id_fkey FOREIGN KEY (status_id) REFERENCES statuses(id) ON DELETE CASCADE
);
CREATE INDEX bookmarks_status ON bookmarks USING btree (status_id);

CREATE TABLE card_jobs (
  status_id   bigint NOT NULL,
  url         text NOT NULL,
  queued_at   timestamp with time zone DEFAULT now() NOT NULL,
  lease_owner text,
  lease_until timestamp with time zone,
  CONSTRAINT card_jobs_pkey PRIMARY KEY (status_id),
  CONSTRAINT card_jobs_status_id_fkey FOREIGN KEY (status_id) REFERENCES statuses(id) ON DELETE CASCADE
);
CREATE INDEX card_jobs_queued ON card_jobs USING btree (queued_at);
CREATE TRIGGER card_jobs_wake AFTER INSERT ON card_jobs FOR EACH STATEMENT EXECUTE FUNCTION card_jobs_wake();

CREATE TABLE custom_filter_keywords (
  id               bigint DEFAULT timestamp_id(now()) NOT NULL,
  custom_filter_id bigint NOT NULL,
  keyword          text NOT NULL,
  whole_word       boolean DEFAULT true NOT NULL,
  created_at       timestamp with time zone DEFAULT now() NOT NULL,
  updated_at       timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT custom_filter_keywords_pkey PRIMARY KEY (id),
  CONSTRAINT custom_filter_keywords_custom_filter_id_fkey FOREIGN KEY (custom_filter_id) REFERENCES custom_filters(id) ON DELETE CASCADE,
  CONSTRAINT custom_filter_keywords_keyword_check CHECK (keyword <> ''::text)
);
CREATE INDEX custom_filter_keywords_filter ON custom_filter_keywords USING btree (custom_filter_id);
CREATE TRIGGER custom_filter_keywords_changed AFTER INSERT OR DELETE OR UPDATE ON custom_filter_keywords FOR EACH ROW EXECUTE FUNCTION custom_filter_parts_changed();

CREATE TABLE custom_filter_statuses (
  id               bigint DEFAULT timestamp_id(now()) NOT NULL,
  custom_filter_id bigint NOT NULL,
  status_id        bigint NOT NULL,
  created_at       timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT custom_filter_statuses_pkey PRIMARY KEY (id),
  CONSTRAINT custom_filter_statuses_custom_filter_id_status_id_key UNIQUE (custom_filter_id, status_id),
  CONSTRAINT custom_filter_statuses_custom_filter_id_fkey FOREIGN KEY (custom_filter_id) REFERENCES custom_filters(id) ON DELETE CASCADE,
  CONSTRAINT custom_filter_statuses_status_id_fkey FOREIGN KEY (status_id) REFERENCES statuses(id) ON DELETE CASCADE
);
CREATE TRIGGER custom_filter_statuses_changed AFTER INSERT OR DELETE OR UPDATE ON custom_filter_statuses FOR EACH ROW EXECUTE FUNCTION custom_filter_parts_changed();

CREATE TABLE custom_filters (
  id            bigint DEFAULT timestamp_id(now()) NOT NULL,
  account_id    bigint NOT NULL,
  title         text NOT NULL,
  context       text[] NOT NULL,
  filter_action text DEFAULT 'warn'::text NOT NULL,
  expires_at    timestamp with time zone,
  created_at    timestamp with time zone DEFAULT now() NOT NULL,
  updated_at    timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT custom_filters_pkey PRIMARY KEY (id),
  CONSTRAINT custom_filters_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT custom_filters_context_check CHECK (context <@ ARRAY['home'::text, 'notifications'::text, 'public'::text, 'thread'::text, 'account'::text] AND cardinality(context) > 0),
  CONSTRAINT custom_filters_filter_action_check CHECK (filter_action = ANY (ARRAY['warn'::text, 'hide'::text, 'blur'::text]))
);
CREATE INDEX custom_filters_account ON custom_filters USING btree (account_id);
CREATE TRIGGER custom_filters_changed AFTER INSERT OR DELETE OR UPDATE ON custom_filters FOR EACH ROW EXECUTE FUNCTION custom_filters_changed();

CREATE TABLE deliveries (
  id              bigint DEFAULT timestamp_id(now()) NOT NULL,
  activity_id     text NOT NULL,
  inbox_url       text NOT NULL,
  host            text NOT NULL,
  signer_id       bigint NOT NULL,
  body            text NOT NULL,
  attempts        integer DEFAULT 0 NOT NULL,
  next_attempt_at timestamp with time zone DEFAULT now() NOT NULL,
  give_up_at      timestamp with time zone NOT NULL,
  lease_until     timestamp with time zone,
  lease_owner     text,
  last_error      text,
  created_at      timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT deliveries_pkey PRIMARY KEY (id),
  CONSTRAINT deliveries_activity_id_inbox_url_key UNIQUE (activity_id, inbox_url),
  CONSTRAINT deliveries_signer_id_fkey FOREIGN KEY (signer_id) REFERENCES accounts(id) ON DELETE CASCADE
);
CREATE INDEX deliveries_due ON deliveries USING btree (host, next_attempt_at);
CREATE INDEX deliveries_next ON deliveries USING btree (next_attempt_at);

CREATE TABLE domain_blocks (
  id              bigint DEFAULT timestamp_id(now()) NOT NULL,
  domain          text NOT NULL,
  severity        text DEFAULT 'silence'::text NOT NULL,
  reject_media    boolean DEFAULT false NOT NULL,
  reject_reports  boolean DEFAULT false NOT NULL,
  private_comment text,
  public_comment  text,
  obfuscate       boolean DEFAULT false NOT NULL,
  created_at      timestamp with time zone DEFAULT now() NOT NULL,
  updated_at      timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT domain_blocks_pkey PRIMARY KEY (id),
  CONSTRAINT domain_blocks_severity_check CHECK (severity = ANY (ARRAY['silence'::text, 'suspend'::text, 'noop'::text]))
);
CREATE UNIQUE INDEX domain_blocks_domain ON domain_blocks USING btree (lower(domain));

CREATE TABLE favourites (
  id         bigint DEFAULT timestamp_id(now()) NOT NULL,
  account_id bigint NOT NULL,
  status_id  bigint NOT NULL,
  uri        text,
  created_at timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT favourites_pkey PRIMARY KEY (id),
  CONSTRAINT favourites_account_id_status_id_key UNIQUE (account_id, status_id),
  CONSTRAINT favourites_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT favourites_status_id_fkey FOREIGN KEY (status_id) REFERENCES statuses(id) ON DELETE CASCADE
);
CREATE INDEX favourites_status ON favourites USING btree (status_id, id DESC);
CREATE UNIQUE INDEX favourites_uri ON favourites USING btree (uri) WHERE (uri IS NOT NULL);
CREATE TRIGGER status_counts_favourite AFTER INSERT OR DELETE ON favourites FOR EACH ROW EXECUTE FUNCTION status_counts_of_favourite();

CREATE TABLE featured_tags (
  id         bigint DEFAULT timestamp_id(now()) NOT NULL,
  account_id bigint NOT NULL,
  tag_id     bigint NOT NULL,
  name       text NOT NULL,
  created_at timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT featured_tags_pkey PRIMARY KEY (id),
  CONSTRAINT featured_tags_account_id_tag_id_key UNIQUE (account_id, tag_id),
  CONSTRAINT featured_tags_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT featured_tags_tag_id_fkey FOREIGN KEY (tag_id) REFERENCES tags(id) ON DELETE CASCADE
);

CREATE TABLE follow_requests (
  id                bigint DEFAULT timestamp_id(now()) NOT NULL,
  account_id        bigint NOT NULL,
  target_account_id bigint NOT NULL,
  uri               text,
  created_at        timestamp with time zone DEFAULT now() NOT NULL,
  show_reblogs      boolean DEFAULT true NOT NULL,
  notify            boolean DEFAULT false NOT NULL,
  languages         text[],
  CONSTRAINT follow_requests_pkey PRIMARY KEY (id),
  CONSTRAINT follow_requests_account_id_target_account_id_key UNIQUE (account_id, target_account_id),
  CONSTRAINT follow_requests_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT follow_requests_target_account_id_fkey FOREIGN KEY (target_account_id) REFERENCES accounts(id) ON DELETE CASCADE
);
CREATE INDEX follow_requests_target ON follow_requests USING btree (target_account_id, id);
CREATE INDEX follow_requests_uri ON follow_requests USING btree (uri) WHERE (uri IS NOT NULL);

CREATE TABLE follows (
  id                bigint DEFAULT timestamp_id(now()) NOT NULL,
  account_id        bigint NOT NULL,
  target_account_id bigint NOT NULL,
  uri               text,
  show_reblogs      boolean DEFAULT true NOT NULL,
  notify            boolean DEFAULT false NOT NULL,
  created_at        timestamp with time zone DEFAULT now() NOT NULL,
  languages         text[],
  follower_remote   boolean DEFAULT false NOT NULL,
  CONSTRAINT follows_pkey PRIMARY KEY (id),
  CONSTRAINT follows_account_id_target_account_id_key UNIQUE (account_id, target_account_id),
  CONSTRAINT follows_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT follows_target_account_id_fkey FOREIGN KEY (target_account_id) REFERENCES accounts(id) ON DELETE CASCADE
);
CREATE INDEX follows_account ON follows USING btree (account_id, id);
CREATE INDEX follows_notify ON follows USING btree (target_account_id) WHERE notify;
CREATE INDEX follows_target ON follows USING btree (target_account_id, id);
CREATE INDEX follows_target_remote ON follows USING btree (target_account_id) WHERE follower_remote;
CREATE INDEX follows_uri ON follows USING btree (uri) WHERE (uri IS NOT NULL);
CREATE TRIGGER account_counts_follow AFTER INSERT OR DELETE ON follows FOR EACH ROW EXECUTE FUNCTION account_counts_of_follow();
CREATE TRIGGER account_counts_follow_update AFTER UPDATE OF account_id, target_account_id ON follows FOR EACH ROW WHEN (old.account_id IS DISTINCT FROM new.account_id OR old.target_account_id IS DISTINCT FROM new.target_account_id) EXECUTE FUNCTION account_counts_of_follow();
CREATE TRIGGER account_pins_unfollow AFTER DELETE ON follows FOR EACH ROW EXECUTE FUNCTION drop_endorsement_of_follow();
CREATE TRIGGER follows_follower_remote BEFORE INSERT OR UPDATE OF account_id ON follows FOR EACH ROW EXECUTE FUNCTION follows_follower_remote();
CREATE TRIGGER home_feeds_follow AFTER INSERT OR DELETE ON follows FOR EACH ROW EXECUTE FUNCTION home_feeds_of_follow();
CREATE TRIGGER home_feeds_follow_update AFTER UPDATE OF account_id, target_account_id ON follows FOR EACH ROW WHEN (old.account_id IS DISTINCT FROM new.account_id OR old.target_account_id IS DISTINCT FROM new.target_account_id) EXECUTE FUNCTION home_feeds_of_follow();

CREATE TABLE history_origins (
  origin        text NOT NULL,
  backoff_until timestamp with time zone,
  attempts      integer DEFAULT 0 NOT NULL,
  reason        text,
  CONSTRAINT history_origins_pkey PRIMARY KEY (origin)
);

CREATE TABLE history_prune_runs (
  id            bigint DEFAULT timestamp_id(now()) NOT NULL,
  kind          text NOT NULL,
  ran_at        timestamp with time zone NOT NULL,
  removed       integer NOT NULL,
  media_queued  integer NOT NULL,
  by_account_id bigint,
  CONSTRAINT history_prune_runs_pkey PRIMARY KEY (id),
  CONSTRAINT history_prune_runs_by_account_id_fkey FOREIGN KEY (by_account_id) REFERENCES accounts(id) ON DELETE SET NULL,
  CONSTRAINT history_prune_runs_kind_check CHECK (kind = ANY (ARRAY['sweep'::text, 'manual'::text]))
);

CREATE TABLE history_sweep (
  singleton boolean DEFAULT true NOT NULL,
  next_at   timestamp with time zone NOT NULL,
  owner     text,
  CONSTRAINT history_sweep_pkey PRIMARY KEY (singleton),
  CONSTRAINT history_sweep_singleton_check CHECK (singleton)
);

CREATE TABLE home_feed_horizons (
  account_id bigint NOT NULL,
  horizon    bigint NOT NULL,
  CONSTRAINT home_feed_horizons_pkey PRIMARY KEY (account_id)
);

CREATE TABLE home_feed_jobs (
  status_id    bigint NOT NULL,
  author_id    bigint NOT NULL,
  after_follow bigint DEFAULT 0 NOT NULL,
  queued_at    timestamp with time zone DEFAULT now() NOT NULL,
  lease_owner  text,
  lease_until  timestamp with time zone,
  CONSTRAINT home_feed_jobs_pkey PRIMARY KEY (status_id),
  CONSTRAINT home_feed_jobs_status_id_fkey FOREIGN KEY (status_id) REFERENCES statuses(id) ON DELETE CASCADE
);
CREATE INDEX home_feed_jobs_author ON home_feed_jobs USING btree (author_id);
CREATE TRIGGER home_feed_jobs_wake AFTER INSERT ON home_feed_jobs FOR EACH STATEMENT EXECUTE FUNCTION home_feed_jobs_wake();

CREATE TABLE home_feeds (
  account_id bigint NOT NULL,
  status_id  bigint NOT NULL,
  CONSTRAINT home_feeds_pkey PRIMARY KEY (account_id, status_id)
);

CREATE TABLE identity_statements (
  id         bigint DEFAULT timestamp_id(now()) NOT NULL,
  account_id bigint NOT NULL,
  subject    text NOT NULL,
  document   text NOT NULL,
  expires_at timestamp with time zone,
  updated_at timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT identity_statements_pkey PRIMARY KEY (id),
  CONSTRAINT identity_statements_account_id_subject_key UNIQUE (account_id, subject),
  CONSTRAINT identity_statements_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE
);

CREATE TABLE inbox_jobs (
  id              bigint DEFAULT timestamp_id(now()) NOT NULL,
  activity_id     text NOT NULL,
  signer_id       bigint,
  body            jsonb NOT NULL,
  attempts        integer DEFAULT 0 NOT NULL,
  next_attempt_at timestamp with time zone DEFAULT now() NOT NULL,
  lease_until     timestamp with time zone,
  lease_owner     text,
  processed_at    timestamp with time zone,
  last_error      text,
  received_at     timestamp with time zone DEFAULT now() NOT NULL,
  raw             text,
  CONSTRAINT inbox_jobs_pkey PRIMARY KEY (id),
  CONSTRAINT inbox_jobs_activity_id_key UNIQUE (activity_id),
  CONSTRAINT inbox_jobs_signer_id_fkey FOREIGN KEY (signer_id) REFERENCES accounts(id) ON DELETE SET NULL
);
CREATE INDEX inbox_jobs_due ON inbox_jobs USING btree (next_attempt_at) WHERE (processed_at IS NULL);
CREATE INDEX inbox_jobs_processed ON inbox_jobs USING btree (processed_at) WHERE (processed_at IS NOT NULL);

CREATE TABLE instance_rules (
  id         bigint DEFAULT timestamp_id(now()) NOT NULL,
  text       text NOT NULL,
  hint       text DEFAULT ''::text NOT NULL,
  priority   integer DEFAULT 0 NOT NULL,
  created_at timestamp with time zone DEFAULT now() NOT NULL,
  updated_at timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT instance_rules_pkey PRIMARY KEY (id),
  CONSTRAINT instance_rules_text_check CHECK (text <> ''::text)
);

CREATE TABLE lemmy_comments (
  id          bigint DEFAULT nextval('lemmy_comments_id_seq'::regclass) NOT NULL,
  status_id   bigint NOT NULL,
  post_id     bigint NOT NULL,
  path        text NOT NULL,
  body        text DEFAULT ''::text NOT NULL,
  published   timestamp with time zone NOT NULL,
  upvotes     integer DEFAULT 0 NOT NULL,
  downvotes   integer DEFAULT 0 NOT NULL,
  score       integer DEFAULT 0 NOT NULL,
  child_count integer DEFAULT 0 NOT NULL,
  hot_rank    double precision DEFAULT 0 NOT NULL,
  CONSTRAINT lemmy_comments_pkey PRIMARY KEY (id),
  CONSTRAINT lemmy_comments_status_id_key UNIQUE (status_id),
  CONSTRAINT lemmy_comments_post_id_fkey FOREIGN KEY (post_id) REFERENCES lemmy_posts(id) ON DELETE CASCADE,
  CONSTRAINT lemmy_comments_status_id_fkey FOREIGN KEY (status_id) REFERENCES statuses(id) ON DELETE CASCADE
);
CREATE INDEX lemmy_comments_path ON lemmy_comments USING btree (path text_pattern_ops);
CREATE INDEX lemmy_comments_post ON lemmy_comments USING btree (post_id, path text_pattern_ops);
CREATE INDEX lemmy_comments_ranked ON lemmy_comments USING btree (published) WHERE (hot_rank > (0)::double precision);
CREATE INDEX lemmy_comments_recent ON lemmy_comments USING btree (published, id);
CREATE TRIGGER lemmy_comments_count AFTER INSERT ON lemmy_comments FOR EACH ROW EXECUTE FUNCTION lemmy_comments_count();
CREATE TRIGGER lemmy_comments_rank BEFORE INSERT ON lemmy_comments FOR EACH ROW EXECUTE FUNCTION lemmy_comments_rank();
CREATE TRIGGER lemmy_comments_uncount AFTER DELETE ON lemmy_comments FOR EACH ROW EXECUTE FUNCTION lemmy_comments_uncount();

CREATE TABLE lemmy_communities (
  id                         bigint DEFAULT nextval('lemmy_communities_id_seq'::regclass) NOT NULL,
  account_id                 bigint NOT NULL,
  moderators_url             text,
  posting_restricted_to_mods boolean DEFAULT false NOT NULL,
  nsfw                       boolean DEFAULT false NOT NULL,
  CONSTRAINT lemmy_communities_pkey PRIMARY KEY (id),
  CONSTRAINT lemmy_communities_account_id_key UNIQUE (account_id),
  CONSTRAINT lemmy_communities_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE
);

CREATE TABLE lemmy_community_moderators (
  community_id bigint NOT NULL,
  account_id   bigint NOT NULL,
  position     integer DEFAULT 0 NOT NULL,
  CONSTRAINT lemmy_community_moderators_pkey PRIMARY KEY (community_id, account_id),
  CONSTRAINT lemmy_community_moderators_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT lemmy_community_moderators_community_id_fkey FOREIGN KEY (community_id) REFERENCES lemmy_communities(id) ON DELETE CASCADE
);

CREATE TABLE lemmy_instances (
  id     bigint DEFAULT nextval('lemmy_instances_id_seq'::regclass) NOT NULL,
  domain text NOT NULL,
  CONSTRAINT lemmy_instances_pkey PRIMARY KEY (id),
  CONSTRAINT lemmy_instances_domain_key UNIQUE (domain)
);

CREATE TABLE lemmy_persons (
  id         bigint DEFAULT nextval('lemmy_persons_id_seq'::regclass) NOT NULL,
  account_id bigint NOT NULL,
  CONSTRAINT lemmy_persons_pkey PRIMARY KEY (id),
  CONSTRAINT lemmy_persons_account_id_key UNIQUE (account_id),
  CONSTRAINT lemmy_persons_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE
);

CREATE TABLE lemmy_posts (
  id                        bigint DEFAULT nextval('lemmy_posts_id_seq'::regclass) NOT NULL,
  status_id                 bigint NOT NULL,
  community_id              bigint NOT NULL,
  name                      text NOT NULL,
  url                       text,
  body                      text DEFAULT ''::text NOT NULL,
  nsfw                      boolean DEFAULT false NOT NULL,
  locked                    boolean DEFAULT false NOT NULL,
  featured_community        boolean DEFAULT false NOT NULL,
  published                 timestamp with time zone NOT NULL,
  upvotes                   integer DEFAULT 0 NOT NULL,
  downvotes                 integer DEFAULT 0 NOT NULL,
  score                     integer DEFAULT 0 NOT NULL,
  comments                  integer DEFAULT 0 NOT NULL,
  newest_comment_time       timestamp with time zone NOT NULL,
  hot_rank                  double precision DEFAULT 0 NOT NULL,
  hot_rank_active           double precision DEFAULT 0 NOT NULL,
  newest_comment_time_necro timestamp with time zone NOT NULL,
  CONSTRAINT lemmy_posts_pkey PRIMARY KEY (id),
  CONSTRAINT lemmy_posts_status_id_key UNIQUE (status_id),
  CONSTRAINT lemmy_posts_community_id_fkey FOREIGN KEY (community_id) REFERENCES lemmy_communities(id) ON DELETE CASCADE,
  CONSTRAINT lemmy_posts_status_id_fkey FOREIGN KEY (status_id) REFERENCES statuses(id) ON DELETE CASCADE
);
CREATE INDEX lemmy_posts_active ON lemmy_posts USING btree (hot_rank_active DESC, published DESC, id DESC);
CREATE INDEX lemmy_posts_comments ON lemmy_posts USING btree (comments DESC, published DESC, id DESC);
CREATE INDEX lemmy_posts_community_active ON lemmy_posts USING btree (community_id, hot_rank_active DESC, published DESC, id DESC);
CREATE INDEX lemmy_posts_community_hot ON lemmy_posts USING btree (community_id, hot_rank DESC, published DESC, id DESC);
CREATE INDEX lemmy_posts_community_new ON lemmy_posts USING btree (community_id, published DESC, id DESC);
CREATE INDEX lemmy_posts_hot ON lemmy_posts USING btree (hot_rank DESC, published DESC, id DESC);
CREATE INDEX lemmy_posts_new ON lemmy_posts USING btree (published DESC, id DESC);
CREATE INDEX lemmy_posts_ranked ON lemmy_posts USING btree (newest_comment_time) WHERE ((hot_rank > (0)::double precision) OR (hot_rank_active > (0)::double precision));
CREATE INDEX lemmy_posts_recent ON lemmy_posts USING btree (newest_comment_time, id);
CREATE INDEX lemmy_posts_score ON lemmy_posts USING btree (score DESC, published DESC, id DESC);
CREATE INDEX lemmy_posts_url ON lemmy_posts USING btree (url) WHERE (url IS NOT NULL);
CREATE TRIGGER lemmy_posts_rank BEFORE INSERT ON lemmy_posts FOR EACH ROW EXECUTE FUNCTION lemmy_posts_rank();

CREATE TABLE lemmy_votes (
  status_id  bigint NOT NULL,
  account_id bigint NOT NULL,
  score      smallint NOT NULL,
  uri        text,
  created_at timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT lemmy_votes_pkey PRIMARY KEY (status_id, account_id),
  CONSTRAINT lemmy_votes_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT lemmy_votes_status_id_fkey FOREIGN KEY (status_id) REFERENCES statuses(id) ON DELETE CASCADE,
  CONSTRAINT lemmy_votes_score_check CHECK (score = ANY (ARRAY['-1'::integer, 1]))
);
CREATE INDEX lemmy_votes_account ON lemmy_votes USING btree (account_id);
CREATE UNIQUE INDEX lemmy_votes_uri ON lemmy_votes USING btree (uri) WHERE (uri IS NOT NULL);
CREATE TRIGGER lemmy_votes_count AFTER INSERT OR DELETE OR UPDATE OF score ON lemmy_votes FOR EACH ROW EXECUTE FUNCTION lemmy_votes_count();

CREATE TABLE links (
  id         bigint DEFAULT timestamp_id(now()) NOT NULL,
  url        text NOT NULL,
  title      text DEFAULT ''::text NOT NULL,
  created_at timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT links_pkey PRIMARY KEY (id),
  CONSTRAINT links_url_key UNIQUE (url)
);

CREATE TABLE list_accounts (
  list_id    bigint NOT NULL,
  account_id bigint NOT NULL,
  CONSTRAINT list_accounts_pkey PRIMARY KEY (list_id, account_id),
  CONSTRAINT list_accounts_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT list_accounts_list_id_fkey FOREIGN KEY (list_id) REFERENCES lists(id) ON DELETE CASCADE
);
CREATE INDEX list_accounts_account ON list_accounts USING btree (account_id);
CREATE TRIGGER list_feeds_member AFTER INSERT OR DELETE ON list_accounts FOR EACH ROW EXECUTE FUNCTION list_feeds_of_member();
CREATE TRIGGER list_feeds_member_update AFTER UPDATE OF list_id, account_id ON list_accounts FOR EACH ROW WHEN (old.list_id IS DISTINCT FROM new.list_id OR old.account_id IS DISTINCT FROM new.account_id) EXECUTE FUNCTION list_feeds_of_member();

CREATE TABLE list_feed_horizons (
  list_id bigint NOT NULL,
  horizon bigint NOT NULL,
  CONSTRAINT list_feed_horizons_pkey PRIMARY KEY (list_id),
  CONSTRAINT list_feed_horizons_list_id_fkey FOREIGN KEY (list_id) REFERENCES lists(id) ON DELETE CASCADE
);

CREATE TABLE list_feeds (
  list_id   bigint NOT NULL,
  status_id bigint NOT NULL,
  CONSTRAINT list_feeds_pkey PRIMARY KEY (list_id, status_id),
  CONSTRAINT list_feeds_list_id_fkey FOREIGN KEY (list_id) REFERENCES lists(id) ON DELETE CASCADE
);

CREATE TABLE lists (
  id             bigint DEFAULT timestamp_id(now()) NOT NULL,
  account_id     bigint NOT NULL,
  title          text NOT NULL,
  replies_policy text DEFAULT 'list'::text NOT NULL,
  exclusive      boolean DEFAULT false NOT NULL,
  created_at     timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT lists_pkey PRIMARY KEY (id),
  CONSTRAINT lists_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT lists_replies_policy_check CHECK (replies_policy = ANY (ARRAY['followed'::text, 'list'::text, 'none'::text]))
);
CREATE INDEX lists_account ON lists USING btree (account_id, id);

CREATE TABLE markers (
  account_id   bigint NOT NULL,
  timeline     text NOT NULL,
  last_read_id text NOT NULL,
  version      integer DEFAULT 1 NOT NULL,
  updated_at   timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT markers_pkey PRIMARY KEY (account_id, timeline),
  CONSTRAINT markers_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE
);

CREATE TABLE media_attachments (
  id                  bigint DEFAULT timestamp_id(now()) NOT NULL,
  account_id          bigint NOT NULL,
  status_id           bigint,
  type                text NOT NULL,
  content_type        text NOT NULL,
  file_name           text,
  file_size           bigint,
  width               integer,
  height              integer,
  description         text,
  focus_x             real DEFAULT 0 NOT NULL,
  focus_y             real DEFAULT 0 NOT NULL,
  remote_url          text,
  position            smallint DEFAULT 0 NOT NULL,
  created_at          timestamp with time zone DEFAULT now() NOT NULL,
  removed             boolean DEFAULT false NOT NULL,
  scheduled_status_id bigint,
  preview_file_name   text,
  small_width         integer,
  small_height        integer,
  blurhash            text,
  processing          text DEFAULT 'done'::text NOT NULL,
  source_file_name    text,
  meta                jsonb,
  processing_error    text,
  attempts            integer DEFAULT 0 NOT NULL,
  lease_owner         text,
  lease_until         timestamp with time zone,
  CONSTRAINT media_attachments_pkey PRIMARY KEY (id),
  CONSTRAINT media_attachments_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT media_attachments_scheduled_status_id_fkey FOREIGN KEY (scheduled_status_id) REFERENCES scheduled_statuses(id) ON DELETE SET NULL,
  CONSTRAINT media_attachments_status_id_fkey FOREIGN KEY (status_id) REFERENCES statuses(id) ON DELETE CASCADE,
  CONSTRAINT media_attachments_processing_check CHECK (processing = ANY (ARRAY['queued'::text, 'running'::text, 'done'::text, 'failed'::text])),
  CONSTRAINT media_attachments_type_check CHECK (type = ANY (ARRAY['image'::text, 'gifv'::text, 'video'::text, 'audio'::text, 'unknown'::text]))
);
CREATE INDEX media_attachments_account ON media_attachments USING btree (account_id, id);
CREATE INDEX media_attachments_preview_file_name ON media_attachments USING btree (preview_file_name) WHERE (preview_file_name IS NOT NULL);
CREATE INDEX media_attachments_processing_idx ON media_attachments USING btree (id) WHERE (processing = ANY (ARRAY['queued'::text, 'running'::text]));
CREATE INDEX media_attachments_scheduled ON media_attachments USING btree (scheduled_status_id) WHERE (scheduled_status_id IS NOT NULL);
CREATE INDEX media_attachments_status ON media_attachments USING btree (status_id, "position") WHERE (status_id IS NOT NULL);
CREATE TRIGGER media_attachments_cache AFTER INSERT OR DELETE OR UPDATE ON media_attachments FOR EACH ROW EXECUTE FUNCTION status_cache_media();

CREATE TABLE media_cleanup (
  file_name text NOT NULL,
  queued_at timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT media_cleanup_pkey PRIMARY KEY (file_name)
);

CREATE TABLE mutes (
  id                 bigint DEFAULT timestamp_id(now()) NOT NULL,
  account_id         bigint NOT NULL,
  target_account_id  bigint NOT NULL,
  hide_notifications boolean DEFAULT true NOT NULL,
  expires_at         timestamp with time zone,
  created_at         timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT mutes_pkey PRIMARY KEY (id),
  CONSTRAINT mutes_account_id_target_account_id_key UNIQUE (account_id, target_account_id),
  CONSTRAINT mutes_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT mutes_target_account_id_fkey FOREIGN KEY (target_account_id) REFERENCES accounts(id) ON DELETE CASCADE
);

CREATE TABLE notification_permissions (
  account_id      bigint NOT NULL,
  from_account_id bigint NOT NULL,
  created_at      timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT notification_permissions_pkey PRIMARY KEY (account_id, from_account_id),
  CONSTRAINT notification_permissions_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT notification_permissions_from_account_id_fkey FOREIGN KEY (from_account_id) REFERENCES accounts(id) ON DELETE CASCADE
);

CREATE TABLE notification_policies (
  account_id           bigint NOT NULL,
  for_not_following    text DEFAULT 'accept'::text NOT NULL,
  for_not_followers    text DEFAULT 'accept'::text NOT NULL,
  for_new_accounts     text DEFAULT 'accept'::text NOT NULL,
  for_private_mentions text DEFAULT 'filter'::text NOT NULL,
  for_limited_accounts text DEFAULT 'filter'::text NOT NULL,
  updated_at           timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT notification_policies_pkey PRIMARY KEY (account_id),
  CONSTRAINT notification_policies_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT notification_policies_for_limited_accounts_check CHECK (for_limited_accounts = ANY (ARRAY['accept'::text, 'filter'::text, 'drop'::text])),
  CONSTRAINT notification_policies_for_new_accounts_check CHECK (for_new_accounts = ANY (ARRAY['accept'::text, 'filter'::text, 'drop'::text])),
  CONSTRAINT notification_policies_for_not_followers_check CHECK (for_not_followers = ANY (ARRAY['accept'::text, 'filter'::text, 'drop'::text])),
  CONSTRAINT notification_policies_for_not_following_check CHECK (for_not_following = ANY (ARRAY['accept'::text, 'filter'::text, 'drop'::text])),
  CONSTRAINT notification_policies_for_private_mentions_check CHECK (for_private_mentions = ANY (ARRAY['accept'::text, 'filter'::text, 'drop'::text]))
);

CREATE TABLE notification_requests (
  id                  bigint DEFAULT timestamp_id(now()) NOT NULL,
  account_id          bigint NOT NULL,
  from_account_id     bigint NOT NULL,
  last_status_id      bigint,
  notifications_count integer DEFAULT 0 NOT NULL,
  created_at          timestamp with time zone DEFAULT now() NOT NULL,
  updated_at          timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT notification_requests_pkey PRIMARY KEY (id),
  CONSTRAINT notification_requests_account_id_from_account_id_key UNIQUE (account_id, from_account_id),
  CONSTRAINT notification_requests_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT notification_requests_from_account_id_fkey FOREIGN KEY (from_account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT notification_requests_last_status_id_fkey FOREIGN KEY (last_status_id) REFERENCES statuses(id) ON DELETE SET NULL
);
CREATE INDEX notification_requests_account ON notification_requests USING btree (account_id, id DESC);

CREATE TABLE notifications (
  id              bigint DEFAULT timestamp_id(now()) NOT NULL,
  account_id      bigint NOT NULL,
  from_account_id bigint NOT NULL,
  type            text NOT NULL,
  status_id       bigint,
  created_at      timestamp with time zone DEFAULT now() NOT NULL,
  report_id       bigint,
  group_key       text,
  filtered        boolean DEFAULT false NOT NULL,
  CONSTRAINT notifications_pkey PRIMARY KEY (id),
  CONSTRAINT notifications_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT notifications_from_account_id_fkey FOREIGN KEY (from_account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT notifications_report_id_fkey FOREIGN KEY (report_id) REFERENCES reports(id) ON DELETE CASCADE,
  CONSTRAINT notifications_status_id_fkey FOREIGN KEY (status_id) REFERENCES statuses(id) ON DELETE CASCADE
);
CREATE INDEX notifications_account ON notifications USING btree (account_id, id DESC);
CREATE INDEX notifications_filtered ON notifications USING btree (account_id, from_account_id) WHERE filtered;
CREATE INDEX notifications_group_key ON notifications USING btree (account_id, group_key) WHERE (group_key IS NOT NULL);
CREATE UNIQUE INDEX notifications_once ON notifications USING btree (account_id, type, from_account_id, COALESCE(status_id, (0)::bigint), COALESCE(report_id, (0)::bigint));
CREATE INDEX notifications_status ON notifications USING btree (status_id) WHERE (status_id IS NOT NULL);
CREATE TRIGGER notifications_gather_request AFTER INSERT ON notifications FOR EACH ROW WHEN (new.filtered) EXECUTE FUNCTION gather_notification_request();
CREATE TRIGGER notifications_policy BEFORE INSERT ON notifications FOR EACH ROW EXECUTE FUNCTION apply_notification_policy();
CREATE TRIGGER notifications_queue_pushes AFTER INSERT ON notifications REFERENCING NEW TABLE AS new_notifications FOR EACH STATEMENT EXECUTE FUNCTION queue_pushes();
CREATE TRIGGER notifications_release_request AFTER DELETE ON notifications FOR EACH ROW WHEN (old.filtered) EXECUTE FUNCTION release_notification_request();
CREATE TRIGGER notifications_stream AFTER INSERT ON notifications FOR EACH ROW WHEN (NOT new.filtered) EXECUTE FUNCTION stream_notification_event();

CREATE TABLE oauth_apps (
  id            bigint DEFAULT timestamp_id(now()) NOT NULL,
  name          text NOT NULL,
  website       text,
  redirect_uris text[] NOT NULL,
  scopes        text[] NOT NULL,
  client_id     text NOT NULL,
  secret_hash   bytea NOT NULL,
  created_at    timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT oauth_apps_pkey PRIMARY KEY (id),
  CONSTRAINT oauth_apps_client_id_key UNIQUE (client_id)
);

CREATE TABLE oauth_codes (
  code_hash      bytea NOT NULL,
  app_id         bigint NOT NULL,
  user_id        bigint NOT NULL,
  redirect_uri   text NOT NULL,
  scopes         text[] NOT NULL,
  code_challenge text,
  expires_at     timestamp with time zone NOT NULL,
  created_at     timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT oauth_codes_pkey PRIMARY KEY (code_hash),
  CONSTRAINT oauth_codes_app_id_fkey FOREIGN KEY (app_id) REFERENCES oauth_apps(id) ON DELETE CASCADE,
  CONSTRAINT oauth_codes_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE
);
CREATE INDEX oauth_codes_expiry ON oauth_codes USING btree (expires_at);
CREATE INDEX oauth_codes_user_app ON oauth_codes USING btree (user_id, app_id);

CREATE TABLE oauth_tokens (
  id           bigint DEFAULT timestamp_id(now()) NOT NULL,
  token_hash   bytea NOT NULL,
  app_id       bigint NOT NULL,
  user_id      bigint,
  scopes       text[] NOT NULL,
  created_at   timestamp with time zone DEFAULT now() NOT NULL,
  last_used_at timestamp with time zone,
  revoked_at   timestamp with time zone,
  CONSTRAINT oauth_tokens_pkey PRIMARY KEY (id),
  CONSTRAINT oauth_tokens_token_hash_key UNIQUE (token_hash),
  CONSTRAINT oauth_tokens_app_id_fkey FOREIGN KEY (app_id) REFERENCES oauth_apps(id) ON DELETE CASCADE,
  CONSTRAINT oauth_tokens_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE
);
CREATE INDEX oauth_tokens_app ON oauth_tokens USING btree (app_id) WHERE (revoked_at IS NULL);
CREATE INDEX oauth_tokens_user_app ON oauth_tokens USING btree (user_id, app_id) WHERE (revoked_at IS NULL);
CREATE TRIGGER oauth_tokens_drop_push_subscription AFTER UPDATE OF revoked_at ON oauth_tokens FOR EACH ROW WHEN (new.revoked_at IS NOT NULL) EXECUTE FUNCTION drop_revoked_push_subscription();

CREATE TABLE pins (
  id         bigint DEFAULT timestamp_id(now()) NOT NULL,
  account_id bigint NOT NULL,
  status_id  bigint NOT NULL,
  CONSTRAINT pins_pkey PRIMARY KEY (id),
  CONSTRAINT pins_account_id_status_id_key UNIQUE (account_id, status_id),
  CONSTRAINT pins_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT pins_status_id_fkey FOREIGN KEY (status_id) REFERENCES statuses(id) ON DELETE CASCADE
);
CREATE INDEX pins_status ON pins USING btree (status_id);

CREATE TABLE poll_votes (
  id         bigint DEFAULT timestamp_id(now()) NOT NULL,
  poll_id    bigint NOT NULL,
  account_id bigint NOT NULL,
  choice     smallint NOT NULL,
  uri        text,
  created_at timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT poll_votes_pkey PRIMARY KEY (id),
  CONSTRAINT poll_votes_poll_id_account_id_choice_key UNIQUE (poll_id, account_id, choice),
  CONSTRAINT poll_votes_uri_key UNIQUE (uri),
  CONSTRAINT poll_votes_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT poll_votes_poll_id_fkey FOREIGN KEY (poll_id) REFERENCES polls(id) ON DELETE CASCADE
);
CREATE INDEX poll_votes_account ON poll_votes USING btree (account_id, poll_id);

CREATE TABLE polls (
  id                 bigint DEFAULT timestamp_id(now()) NOT NULL,
  status_id          bigint NOT NULL,
  account_id         bigint NOT NULL,
  options            text[] NOT NULL,
  multiple           boolean DEFAULT false NOT NULL,
  hide_totals        boolean DEFAULT false NOT NULL,
  expires_at         timestamp with time zone,
  remote_counts      integer[],
  remote_voters      integer,
  created_at         timestamp with time zone DEFAULT now() NOT NULL,
  closed_at          timestamp with time zone,
  update_due_at      timestamp with time zone,
  update_lease_until timestamp with time zone,
  refreshed_at       timestamp with time zone,
  update_lease_owner text,
  CONSTRAINT polls_pkey PRIMARY KEY (id),
  CONSTRAINT polls_status_id_key UNIQUE (status_id),
  CONSTRAINT polls_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT polls_status_id_fkey FOREIGN KEY (status_id) REFERENCES statuses(id) ON DELETE CASCADE
);
CREATE INDEX polls_open ON polls USING btree (expires_at) WHERE ((closed_at IS NULL) AND (expires_at IS NOT NULL));
CREATE INDEX polls_update_due ON polls USING btree (update_due_at) WHERE (update_due_at IS NOT NULL);
CREATE INDEX polls_update_lease ON polls USING btree (update_lease_until) WHERE (update_lease_until IS NOT NULL);
CREATE TRIGGER polls_cache AFTER INSERT OR DELETE ON polls FOR EACH ROW EXECUTE FUNCTION status_cache_poll();

CREATE TABLE preview_cards (
  id                 bigint DEFAULT timestamp_id(now()) NOT NULL,
  url                text NOT NULL,
  title              text DEFAULT ''::text NOT NULL,
  description        text DEFAULT ''::text NOT NULL,
  type               text DEFAULT 'link'::text NOT NULL,
  author_name        text DEFAULT ''::text NOT NULL,
  author_url         text DEFAULT ''::text NOT NULL,
  provider_name      text DEFAULT ''::text NOT NULL,
  provider_url       text DEFAULT ''::text NOT NULL,
  html               text DEFAULT ''::text NOT NULL,
  width              integer DEFAULT 0 NOT NULL,
  height             integer DEFAULT 0 NOT NULL,
  image_remote_url   text,
  image_file         text,
  image_content_type text,
  image_width        integer,
  image_height       integer,
  image_description  text DEFAULT ''::text NOT NULL,
  blurhash           text,
  embed_url          text DEFAULT ''::text NOT NULL,
  language           text,
  published_at       timestamp with time zone,
  fetched_at         timestamp with time zone,
  error              text,
  created_at         timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT preview_cards_pkey PRIMARY KEY (id),
  CONSTRAINT preview_cards_url_key UNIQUE (url),
  CONSTRAINT preview_cards_type_check CHECK (type = ANY (ARRAY['link'::text, 'photo'::text, 'video'::text, 'rich'::text]))
);
CREATE TRIGGER preview_cards_changed AFTER UPDATE ON preview_cards FOR EACH ROW WHEN (old.title IS DISTINCT FROM new.title OR old.description IS DISTINCT FROM new.description OR old.type IS DISTINCT FROM new.type OR old.author_name IS DISTINCT FROM new.author_name OR old.author_url IS DISTINCT FROM new.author_url OR old.provider_name IS DISTINCT FROM new.provider_name OR old.provider_url IS DISTINCT FROM new.provider_url OR old.html IS DISTINCT FROM new.html OR old.width IS DISTINCT FROM new.width OR old.height IS DISTINCT FROM new.height OR old.image_file IS DISTINCT FROM new.image_file OR old.image_description IS DISTINCT FROM new.image_description OR old.blurhash IS DISTINCT FROM new.blurhash OR old.embed_url IS DISTINCT FROM new.embed_url OR old.language IS DISTINCT FROM new.language OR old.published_at IS DISTINCT FROM new.published_at OR old.error IS DISTINCT FROM new.error) EXECUTE FUNCTION preview_cards_changed();

CREATE TABLE publishers (
  id                  bigint DEFAULT timestamp_id(now()) NOT NULL,
  domain              text NOT NULL,
  trendable           boolean,
  reviewed_at         timestamp with time zone,
  reviewed_by         bigint,
  requested_review_at timestamp with time zone,
  created_at          timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT publishers_pkey PRIMARY KEY (id),
  CONSTRAINT publishers_domain_key UNIQUE (domain),
  CONSTRAINT publishers_reviewed_by_fkey FOREIGN KEY (reviewed_by) REFERENCES accounts(id) ON DELETE SET NULL
);

CREATE TABLE push_deliveries (
  id              bigint DEFAULT timestamp_id(now()) NOT NULL,
  subscription_id bigint NOT NULL,
  notification_id bigint NOT NULL,
  host            text NOT NULL,
  attempts        integer DEFAULT 0 NOT NULL,
  next_attempt_at timestamp with time zone DEFAULT now() NOT NULL,
  give_up_at      timestamp with time zone DEFAULT (now() + '1 day'::interval) NOT NULL,
  lease_until     timestamp with time zone,
  lease_owner     text,
  last_error      text,
  created_at      timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT push_deliveries_pkey PRIMARY KEY (id),
  CONSTRAINT push_deliveries_subscription_id_notification_id_key UNIQUE (subscription_id, notification_id),
  CONSTRAINT push_deliveries_notification_id_fkey FOREIGN KEY (notification_id) REFERENCES notifications(id) ON DELETE CASCADE,
  CONSTRAINT push_deliveries_subscription_id_fkey FOREIGN KEY (subscription_id) REFERENCES web_push_subscriptions(id) ON DELETE CASCADE
);
CREATE INDEX push_deliveries_due ON push_deliveries USING btree (host, next_attempt_at);
CREATE INDEX push_deliveries_next ON push_deliveries USING btree (next_attempt_at);

CREATE TABLE remote_histories (
  account_id      bigint NOT NULL,
  origin          text NOT NULL,
  state           text DEFAULT 'idle'::text NOT NULL,
  reason          text,
  cursor          text,
  pages_budget    smallint DEFAULT 0 NOT NULL,
  items_examined  integer DEFAULT 0 NOT NULL,
  items_imported  integer DEFAULT 0 NOT NULL,
  pages_fetched   integer DEFAULT 0 NOT NULL,
  last_fetched_at timestamp with time zone,
  attempts        integer DEFAULT 0 NOT NULL,
  retry_at        timestamp with time zone,
  queued_at       timestamp with time zone,
  lease_owner     text,
  lease_until     timestamp with time zone,
  viewed_at       timestamp with time zone DEFAULT now() NOT NULL,
  created_at      timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT remote_histories_pkey PRIMARY KEY (account_id),
  CONSTRAINT remote_histories_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT remote_histories_state_check CHECK (state = ANY (ARRAY['idle'::text, 'queued'::text, 'fetching'::text, 'partial'::text, 'complete'::text, 'unsupported'::text, 'backoff'::text]))
);
CREATE INDEX remote_histories_active ON remote_histories USING btree (origin, queued_at) WHERE (state = ANY (ARRAY['queued'::text, 'fetching'::text, 'backoff'::text]));
CREATE UNIQUE INDEX remote_histories_one_fetching ON remote_histories USING btree (origin) WHERE (state = 'fetching'::text);

CREATE TABLE remote_images (
  url          text NOT NULL,
  file_name    text NOT NULL,
  content_type text NOT NULL,
  byte_size    integer NOT NULL,
  created_at   timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT remote_images_pkey PRIMARY KEY (url)
);

CREATE TABLE reports (
  id                         bigint DEFAULT timestamp_id(now()) NOT NULL,
  account_id                 bigint NOT NULL,
  target_account_id          bigint NOT NULL,
  status_ids                 bigint[] DEFAULT '{}'::bigint[] NOT NULL,
  comment                    text DEFAULT ''::text NOT NULL,
  category                   text DEFAULT 'other'::text NOT NULL,
  forwarded                  boolean DEFAULT false NOT NULL,
  uri                        text,
  created_at                 timestamp with time zone DEFAULT now() NOT NULL,
  action_taken_at            timestamp with time zone,
  action_taken_by_account_id bigint,
  assigned_account_id        bigint,
  updated_at                 timestamp with time zone DEFAULT now() NOT NULL,
  rule_ids                   bigint[],
  CONSTRAINT reports_pkey PRIMARY KEY (id),
  CONSTRAINT reports_uri_key UNIQUE (uri),
  CONSTRAINT reports_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT reports_action_taken_by_account_id_fkey FOREIGN KEY (action_taken_by_account_id) REFERENCES accounts(id) ON DELETE SET NULL,
  CONSTRAINT reports_assigned_account_id_fkey FOREIGN KEY (assigned_account_id) REFERENCES accounts(id) ON DELETE SET NULL,
  CONSTRAINT reports_target_account_id_fkey FOREIGN KEY (target_account_id) REFERENCES accounts(id) ON DELETE CASCADE
);
CREATE INDEX reports_statuses ON reports USING gin (status_ids);
CREATE INDEX reports_target ON reports USING btree (target_account_id, id DESC);
CREATE INDEX reports_unresolved ON reports USING btree (id DESC) WHERE (action_taken_at IS NULL);

CREATE TABLE roles (
  id          bigint NOT NULL,
  name        text NOT NULL,
  permissions bigint DEFAULT 0 NOT NULL,
  color       text DEFAULT ''::text NOT NULL,
  highlighted boolean DEFAULT false NOT NULL,
  position    integer NOT NULL,
  CONSTRAINT roles_pkey PRIMARY KEY (id),
  CONSTRAINT roles_name_key UNIQUE (name)
);

CREATE TABLE scheduled_statuses (
  id              bigint DEFAULT timestamp_id(now()) NOT NULL,
  account_id      bigint NOT NULL,
  scheduled_at    timestamp with time zone NOT NULL,
  params          jsonb NOT NULL,
  idempotency_key text,
  created_at      timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT scheduled_statuses_pkey PRIMARY KEY (id),
  CONSTRAINT scheduled_statuses_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE
);
CREATE INDEX scheduled_statuses_account ON scheduled_statuses USING btree (account_id, id);
CREATE INDEX scheduled_statuses_due ON scheduled_statuses USING btree (scheduled_at);
CREATE UNIQUE INDEX scheduled_statuses_idempotency ON scheduled_statuses USING btree (account_id, idempotency_key) WHERE (idempotency_key IS NOT NULL);
CREATE TRIGGER scheduled_statuses_wake AFTER INSERT OR UPDATE OF scheduled_at ON scheduled_statuses FOR EACH STATEMENT EXECUTE FUNCTION scheduled_statuses_wake();

CREATE TABLE schema_migrations (
  version    integer NOT NULL,
  name       text NOT NULL,
  applied_at timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT schema_migrations_pkey PRIMARY KEY (version)
);

CREATE TABLE sessions (
  id_hash      bytea NOT NULL,
  user_id      bigint NOT NULL,
  created_at   timestamp with time zone DEFAULT now() NOT NULL,
  last_seen_at timestamp with time zone DEFAULT now() NOT NULL,
  ip           text DEFAULT ''::text NOT NULL,
  user_agent   text DEFAULT ''::text NOT NULL,
  CONSTRAINT sessions_pkey PRIMARY KEY (id_hash),
  CONSTRAINT sessions_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE
);
CREATE INDEX sessions_user ON sessions USING btree (user_id);

CREATE TABLE settings (
  key        text NOT NULL,
  value      jsonb NOT NULL,
  updated_at timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT settings_pkey PRIMARY KEY (key)
);

CREATE TABLE status_cards (
  status_id bigint NOT NULL,
  card_id   bigint NOT NULL,
  CONSTRAINT status_cards_pkey PRIMARY KEY (status_id),
  CONSTRAINT status_cards_card_id_fkey FOREIGN KEY (card_id) REFERENCES preview_cards(id) ON DELETE CASCADE,
  CONSTRAINT status_cards_status_id_fkey FOREIGN KEY (status_id) REFERENCES statuses(id) ON DELETE CASCADE
);
CREATE INDEX status_cards_card ON status_cards USING btree (card_id);
CREATE TRIGGER status_cards_changed AFTER INSERT OR UPDATE ON status_cards FOR EACH ROW EXECUTE FUNCTION status_cards_changed();

CREATE TABLE status_counts (
  status_id  bigint NOT NULL,
  replies    integer DEFAULT 0 NOT NULL,
  reblogs    integer DEFAULT 0 NOT NULL,
  favourites integer DEFAULT 0 NOT NULL,
  quotes     integer DEFAULT 0 NOT NULL,
  CONSTRAINT status_counts_pkey PRIMARY KEY (status_id)
);

CREATE TABLE status_edits (
  id                 bigint DEFAULT timestamp_id(now()) NOT NULL,
  status_id          bigint NOT NULL,
  content            text NOT NULL,
  spoiler_text       text DEFAULT ''::text NOT NULL,
  sensitive          boolean DEFAULT false NOT NULL,
  created_at         timestamp with time zone NOT NULL,
  media_ids          bigint[] DEFAULT '{}'::bigint[] NOT NULL,
  media_descriptions text[] DEFAULT '{}'::text[] NOT NULL,
  poll_options       text[],
  CONSTRAINT status_edits_pkey PRIMARY KEY (id),
  CONSTRAINT status_edits_status_id_fkey FOREIGN KEY (status_id) REFERENCES statuses(id) ON DELETE CASCADE
);
CREATE INDEX status_edits_status ON status_edits USING btree (status_id, id);

CREATE TABLE status_idempotency (
  account_id bigint NOT NULL,
  key        text NOT NULL,
  status_id  bigint NOT NULL,
  created_at timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT status_idempotency_pkey PRIMARY KEY (account_id, key),
  CONSTRAINT status_idempotency_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT status_idempotency_status_id_fkey FOREIGN KEY (status_id) REFERENCES statuses(id) ON DELETE CASCADE
);
CREATE INDEX status_idempotency_status ON status_idempotency USING btree (status_id);

CREATE TABLE status_links (
  status_id bigint NOT NULL,
  link_id   bigint NOT NULL,
  CONSTRAINT status_links_pkey PRIMARY KEY (status_id, link_id),
  CONSTRAINT status_links_link_id_fkey FOREIGN KEY (link_id) REFERENCES links(id) ON DELETE CASCADE,
  CONSTRAINT status_links_status_id_fkey FOREIGN KEY (status_id) REFERENCES statuses(id) ON DELETE CASCADE
);
CREATE INDEX status_links_link ON status_links USING btree (link_id, status_id DESC);

CREATE TABLE status_mentions (
  status_id  bigint NOT NULL,
  account_id bigint NOT NULL,
  CONSTRAINT status_mentions_pkey PRIMARY KEY (status_id, account_id),
  CONSTRAINT status_mentions_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT status_mentions_status_id_fkey FOREIGN KEY (status_id) REFERENCES statuses(id) ON DELETE CASCADE
);
CREATE INDEX status_mentions_account ON status_mentions USING btree (account_id, status_id DESC);
CREATE TRIGGER home_feeds_mention AFTER INSERT ON status_mentions FOR EACH ROW EXECUTE FUNCTION home_feeds_of_mention();

CREATE TABLE status_reactions (
  id         bigint DEFAULT timestamp_id(now()) NOT NULL,
  account_id bigint NOT NULL,
  status_id  bigint NOT NULL,
  emoji      text NOT NULL,
  uri        text,
  created_at timestamp with time zone DEFAULT now() NOT NULL,
  emoji_url  text,
  CONSTRAINT status_reactions_pkey PRIMARY KEY (id),
  CONSTRAINT status_reactions_account_id_status_id_emoji_key UNIQUE (account_id, status_id, emoji),
  CONSTRAINT status_reactions_uri_key UNIQUE (uri),
  CONSTRAINT status_reactions_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT status_reactions_status_id_fkey FOREIGN KEY (status_id) REFERENCES statuses(id) ON DELETE CASCADE
);
CREATE INDEX status_reactions_status ON status_reactions USING btree (status_id, emoji);

CREATE TABLE status_tags (
  status_id bigint NOT NULL,
  tag_id    bigint NOT NULL,
  CONSTRAINT status_tags_pkey PRIMARY KEY (status_id, tag_id),
  CONSTRAINT status_tags_status_id_fkey FOREIGN KEY (status_id) REFERENCES statuses(id) ON DELETE CASCADE,
  CONSTRAINT status_tags_tag_id_fkey FOREIGN KEY (tag_id) REFERENCES tags(id) ON DELETE CASCADE
);
CREATE INDEX status_tags_tag ON status_tags USING btree (tag_id, status_id DESC);
CREATE TRIGGER home_feeds_tag AFTER INSERT ON status_tags FOR EACH ROW EXECUTE FUNCTION home_feeds_of_tag();

CREATE TABLE statuses (
  id                     bigint DEFAULT timestamp_id(now()) NOT NULL,
  account_id             bigint NOT NULL,
  uri                    text,
  url                    text,
  text                   text DEFAULT ''::text NOT NULL,
  content                text NOT NULL,
  spoiler_text           text DEFAULT ''::text NOT NULL,
  visibility             smallint NOT NULL,
  sensitive              boolean DEFAULT false NOT NULL,
  language               text,
  in_reply_to_id         bigint,
  in_reply_to_account_id bigint,
  in_reply_to_uri        text,
  application_id         bigint,
  local                  boolean NOT NULL,
  created_at             timestamp with time zone DEFAULT now() NOT NULL,
  edited_at              timestamp with time zone,
  deleted_at             timestamp with time zone,
  reblog_of_id           bigint,
  quote_of_id            bigint,
  quote_uri              text,
  history                boolean DEFAULT false NOT NULL,
  quote_policy           text DEFAULT 'public'::text NOT NULL,
  quote_revoked          boolean DEFAULT false NOT NULL,
  CONSTRAINT statuses_pkey PRIMARY KEY (id),
  CONSTRAINT statuses_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT statuses_application_fk FOREIGN KEY (application_id) REFERENCES oauth_apps(id) ON DELETE SET NULL,
  CONSTRAINT statuses_in_reply_to_account_id_fkey FOREIGN KEY (in_reply_to_account_id) REFERENCES accounts(id) ON DELETE SET NULL,
  CONSTRAINT statuses_in_reply_to_id_fkey FOREIGN KEY (in_reply_to_id) REFERENCES statuses(id) ON DELETE SET NULL,
  CONSTRAINT statuses_quote_of_id_fkey FOREIGN KEY (quote_of_id) REFERENCES statuses(id) ON DELETE SET NULL,
  CONSTRAINT statuses_reblog_of_id_fkey FOREIGN KEY (reblog_of_id) REFERENCES statuses(id) ON DELETE CASCADE,
  CONSTRAINT statuses_quote_policy_check CHECK (quote_policy = ANY (ARRAY['public'::text, 'followers'::text, 'nobody'::text])),
  CONSTRAINT statuses_visibility_check CHECK (visibility >= 0 AND visibility <= 3)
);
CREATE INDEX statuses_account ON statuses USING btree (account_id, id DESC) WHERE (deleted_at IS NULL);
CREATE INDEX statuses_history ON statuses USING btree (created_at) WHERE history;
CREATE UNIQUE INDEX statuses_one_reblog ON statuses USING btree (account_id, reblog_of_id) WHERE ((reblog_of_id IS NOT NULL) AND (deleted_at IS NULL));
CREATE INDEX statuses_public ON statuses USING btree (id DESC) WHERE ((deleted_at IS NULL) AND (visibility = 0));
CREATE INDEX statuses_public_local ON statuses USING btree (id DESC) WHERE ((deleted_at IS NULL) AND (visibility = 0) AND local);
CREATE INDEX statuses_quotes ON statuses USING btree (quote_of_id) WHERE (quote_of_id IS NOT NULL);
CREATE INDEX statuses_reblog_of ON statuses USING btree (reblog_of_id) WHERE (reblog_of_id IS NOT NULL);
CREATE INDEX statuses_reblogs ON statuses USING btree (reblog_of_id, id DESC) WHERE ((reblog_of_id IS NOT NULL) AND (deleted_at IS NULL));
CREATE INDEX statuses_replies ON statuses USING btree (in_reply_to_id) WHERE (in_reply_to_id IS NOT NULL);
CREATE INDEX statuses_search ON statuses USING gin (to_tsvector('simple'::regconfig, regexp_replace(((content || ' '::text) || spoiler_text), '<[^>]*>'::text, ' '::text, 'g'::text))) WHERE ((deleted_at IS NULL) AND (reblog_of_id IS NULL));
CREATE UNIQUE INDEX statuses_uri ON statuses USING btree (uri) WHERE (uri IS NOT NULL);
CREATE TRIGGER account_counts_status_delete AFTER DELETE ON statuses FOR EACH ROW WHEN (old.deleted_at IS NULL AND old.visibility <> 3) EXECUTE FUNCTION account_counts_of_status();
CREATE TRIGGER account_counts_status_insert AFTER INSERT ON statuses FOR EACH ROW WHEN (new.deleted_at IS NULL AND new.visibility <> 3) EXECUTE FUNCTION account_counts_of_status();
CREATE TRIGGER account_counts_status_update AFTER UPDATE OF deleted_at, visibility, account_id, created_at ON statuses FOR EACH ROW WHEN (old.deleted_at IS DISTINCT FROM new.deleted_at OR old.visibility IS DISTINCT FROM new.visibility OR old.account_id IS DISTINCT FROM new.account_id OR old.created_at IS DISTINCT FROM new.created_at) EXECUTE FUNCTION account_counts_of_status();
CREATE TRIGGER home_feeds_status_insert AFTER INSERT ON statuses FOR EACH ROW WHEN (NOT new.history AND new.deleted_at IS NULL) EXECUTE FUNCTION home_feeds_of_status();
CREATE TRIGGER home_feeds_status_promote AFTER UPDATE OF history ON statuses FOR EACH ROW WHEN (old.history AND NOT new.history AND new.deleted_at IS NULL) EXECUTE FUNCTION home_feeds_of_status();
CREATE TRIGGER lemmy_comments_soft_uncount AFTER UPDATE OF deleted_at ON statuses FOR EACH ROW WHEN ((old.deleted_at IS NULL) <> (new.deleted_at IS NULL)) EXECUTE FUNCTION lemmy_comments_soft_uncount();
CREATE TRIGGER list_feeds_status_insert AFTER INSERT ON statuses FOR EACH ROW WHEN (NOT new.history AND new.deleted_at IS NULL AND new.visibility <= 2) EXECUTE FUNCTION list_feeds_of_status();
CREATE TRIGGER list_feeds_status_promote AFTER UPDATE OF history ON statuses FOR EACH ROW WHEN (old.history AND NOT new.history AND new.deleted_at IS NULL AND new.visibility <= 2) EXECUTE FUNCTION list_feeds_of_status();
CREATE TRIGGER status_counts_delete AFTER DELETE ON statuses FOR EACH ROW EXECUTE FUNCTION status_counts_of_status();
CREATE TRIGGER status_counts_insert AFTER INSERT ON statuses FOR EACH ROW WHEN (new.deleted_at IS NULL AND (new.reblog_of_id IS NOT NULL OR new.in_reply_to_id IS NOT NULL OR new.quote_of_id IS NOT NULL)) EXECUTE FUNCTION status_counts_of_status();
CREATE TRIGGER status_counts_update AFTER UPDATE OF deleted_at, visibility, reblog_of_id, in_reply_to_id, quote_of_id ON statuses FOR EACH ROW WHEN (old.deleted_at IS DISTINCT FROM new.deleted_at OR old.visibility IS DISTINCT FROM new.visibility OR old.reblog_of_id IS DISTINCT FROM new.reblog_of_id OR old.in_reply_to_id IS DISTINCT FROM new.in_reply_to_id OR old.quote_of_id IS DISTINCT FROM new.quote_of_id) EXECUTE FUNCTION status_counts_of_status();
CREATE TRIGGER statuses_cache AFTER DELETE OR UPDATE ON statuses FOR EACH ROW EXECUTE FUNCTION status_cache_status();
CREATE TRIGGER statuses_stream AFTER INSERT OR UPDATE OF deleted_at, history, edited_at ON statuses FOR EACH ROW EXECUTE FUNCTION stream_status_event();

CREATE TABLE suggestion_dismissals (
  account_id        bigint NOT NULL,
  target_account_id bigint NOT NULL,
  created_at        timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT suggestion_dismissals_pkey PRIMARY KEY (account_id, target_account_id),
  CONSTRAINT suggestion_dismissals_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT suggestion_dismissals_target_account_id_fkey FOREIGN KEY (target_account_id) REFERENCES accounts(id) ON DELETE CASCADE
);

CREATE TABLE suggestion_features (
  account_id bigint NOT NULL,
  created_at timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT suggestion_features_pkey PRIMARY KEY (account_id),
  CONSTRAINT suggestion_features_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE
);

CREATE TABLE tag_follows (
  id         bigint DEFAULT timestamp_id(now()) NOT NULL,
  account_id bigint NOT NULL,
  tag_id     bigint NOT NULL,
  created_at timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT tag_follows_pkey PRIMARY KEY (id),
  CONSTRAINT tag_follows_account_id_tag_id_key UNIQUE (account_id, tag_id),
  CONSTRAINT tag_follows_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT tag_follows_tag_id_fkey FOREIGN KEY (tag_id) REFERENCES tags(id) ON DELETE CASCADE
);
CREATE INDEX tag_follows_tag ON tag_follows USING btree (tag_id, account_id);
CREATE TRIGGER home_feeds_tag_follow AFTER INSERT ON tag_follows FOR EACH ROW EXECUTE FUNCTION home_feeds_of_tag_follow();

CREATE TABLE tags (
  id   bigint DEFAULT timestamp_id(now()) NOT NULL,
  name text NOT NULL,
  key  text NOT NULL,
  CONSTRAINT tags_pkey PRIMARY KEY (id),
  CONSTRAINT tags_key_key UNIQUE (key)
);
CREATE INDEX tags_key_prefix ON tags USING btree (key text_pattern_ops);

CREATE TABLE thread_mutes (
  account_id     bigint NOT NULL,
  root_status_id bigint NOT NULL,
  created_at     timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT thread_mutes_pkey PRIMARY KEY (account_id, root_status_id),
  CONSTRAINT thread_mutes_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT thread_mutes_root_status_id_fkey FOREIGN KEY (root_status_id) REFERENCES statuses(id) ON DELETE CASCADE
);
CREATE INDEX thread_mutes_root ON thread_mutes USING btree (root_status_id);

CREATE UNLOGGED TABLE throttle_counters (
  key        text NOT NULL,
  expires_at timestamp with time zone NOT NULL,
  n          integer NOT NULL,
  CONSTRAINT throttle_counters_pkey PRIMARY KEY (key)
);
CREATE INDEX throttle_counters_expires ON throttle_counters USING btree (expires_at);

CREATE TABLE trend_reviews (
  kind        text NOT NULL,
  item_id     bigint NOT NULL,
  trendable   boolean NOT NULL,
  reviewed_by bigint,
  reviewed_at timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT trend_reviews_pkey PRIMARY KEY (kind, item_id),
  CONSTRAINT trend_reviews_reviewed_by_fkey FOREIGN KEY (reviewed_by) REFERENCES accounts(id) ON DELETE SET NULL,
  CONSTRAINT trend_reviews_kind_check CHECK (kind = ANY (ARRAY['tag'::text, 'status'::text, 'link'::text]))
);

CREATE TABLE trends (
  kind         text NOT NULL,
  item_id      bigint NOT NULL,
  score        double precision NOT NULL,
  max_score    double precision DEFAULT 0 NOT NULL,
  max_score_at timestamp with time zone,
  listed       boolean NOT NULL,
  history      jsonb DEFAULT '[]'::jsonb NOT NULL,
  refreshed_at timestamp with time zone NOT NULL,
  CONSTRAINT trends_pkey PRIMARY KEY (kind, item_id),
  CONSTRAINT trends_kind_check CHECK (kind = ANY (ARRAY['tag'::text, 'status'::text, 'link'::text]))
);
CREATE INDEX trends_ranked ON trends USING btree (kind, score DESC, item_id DESC) WHERE listed;

CREATE TABLE users (
  id                        bigint DEFAULT timestamp_id(now()) NOT NULL,
  account_id                bigint NOT NULL,
  email                     text NOT NULL,
  password_hash             text NOT NULL,
  role_id                   bigint DEFAULT 0 NOT NULL,
  approved                  boolean DEFAULT true NOT NULL,
  disabled                  boolean DEFAULT false NOT NULL,
  sign_up_reason            text,
  created_at                timestamp with time zone DEFAULT now() NOT NULL,
  last_sign_in_at           timestamp with time zone,
  last_sign_in_ip           text,
  default_privacy           smallint DEFAULT 0 NOT NULL,
  default_sensitive         boolean DEFAULT false NOT NULL,
  default_language          text,
  media_origin_fallback     boolean DEFAULT false NOT NULL,
  chosen_languages          text[],
  created_by_application_id bigint,
  locale                    text,
  CONSTRAINT users_pkey PRIMARY KEY (id),
  CONSTRAINT users_account_id_key UNIQUE (account_id),
  CONSTRAINT users_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT users_created_by_application_id_fkey FOREIGN KEY (created_by_application_id) REFERENCES oauth_apps(id) ON DELETE SET NULL,
  CONSTRAINT users_role_id_fkey FOREIGN KEY (role_id) REFERENCES roles(id),
  CONSTRAINT users_default_privacy_check CHECK (default_privacy >= 0 AND default_privacy <= 3)
);
CREATE UNIQUE INDEX users_email ON users USING btree (lower(email));
CREATE INDEX users_pending ON users USING btree (created_at) WHERE (NOT approved);

CREATE TABLE web_push_subscriptions (
  id              bigint DEFAULT timestamp_id(now()) NOT NULL,
  access_token_id bigint NOT NULL,
  account_id      bigint NOT NULL,
  endpoint        text NOT NULL,
  host            text NOT NULL,
  key_p256dh      text NOT NULL,
  key_auth        text NOT NULL,
  sealed_token    text NOT NULL,
  standard        boolean DEFAULT false NOT NULL,
  alerts          text[] DEFAULT '{}'::text[] NOT NULL,
  policy          text DEFAULT 'all'::text NOT NULL,
  created_at      timestamp with time zone DEFAULT now() NOT NULL,
  updated_at      timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT web_push_subscriptions_pkey PRIMARY KEY (id),
  CONSTRAINT web_push_subscriptions_access_token_id_key UNIQUE (access_token_id),
  CONSTRAINT web_push_subscriptions_access_token_id_fkey FOREIGN KEY (access_token_id) REFERENCES oauth_tokens(id) ON DELETE CASCADE,
  CONSTRAINT web_push_subscriptions_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT web_push_subscriptions_policy_check CHECK (policy = ANY (ARRAY['all'::text, 'followed'::text, 'follower'::text, 'none'::text]))
);
CREATE INDEX web_push_subscriptions_account ON web_push_subscriptions USING btree (account_id);
