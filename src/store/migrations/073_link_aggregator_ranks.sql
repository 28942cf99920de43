-- Fixes to 070's ranks (issue 37), against Lemmy 0.19.9's SQL; tested by test/store/link-aggregator.test.ts.
--
-- 1. lemmy_hot_rank is Lemmy 0.19's r.hot_rank (crates/db_schema/replaceable_schema/utils.sql): positive only while
--    0 < now() - published < 7 days. 070 also ranked a post dated exactly now(); Lemmy gives it 0, as it gives a post
--    dated in the future (so a future date cannot pin a post on top).
-- 2. 070's refresh walked only rows whose rank was above 0, so a row ranked 0 when written (dated in the future, or
--    at or after the writing transaction's now(): a status created with a clock read after BEGIN) stayed 0 for ever.
--    Lemmy avoids that with a 0.0001 default rank; here the refresh walks every row whose time lies within the last
--    week or ahead (these indexes), plus the rows still ranked above 0 that have aged out (the partial indexes), so a
--    future-dated post ranks 0 until its date comes and then as any other.

CREATE OR REPLACE FUNCTION lemmy_hot_rank(score integer, published timestamptz) RETURNS double precision
  LANGUAGE sql STABLE
  AS $$
    SELECT CASE
      WHEN now() - published > interval '0' AND now() - published < interval '7 days'
        THEN log(greatest(2, score + 2)::double precision) / power(extract(epoch FROM (now() - published))::double precision / 3600 + 2, 1.8)
      ELSE 0.0
    END
  $$;

-- newest_comment_time >= published always (070 starts it at published and only raises it): the week's posts for
-- both ranks.
CREATE INDEX lemmy_posts_recent ON lemmy_posts (newest_comment_time, id);
-- The ranked posts by the time their ranks end (070's was by published, which cannot find the aged-out ones).
DROP INDEX lemmy_posts_ranked;
CREATE INDEX lemmy_posts_ranked ON lemmy_posts (newest_comment_time) WHERE hot_rank > 0 OR hot_rank_active > 0;
CREATE INDEX lemmy_comments_recent ON lemmy_comments (published, id);
CREATE INDEX lemmy_comments_ranked ON lemmy_comments (published) WHERE hot_rank > 0;

-- 3. The Active rank is Lemmy's: it decays from newest_comment_time_necro, the newest comment that is not the post's
--    author's own and came within 2 days of the post (Lemmy 0.19: no necro-bumping an old post to the top of Active,
--    no bumping one's own). 070 took every comment. newest_comment_time stays every comment's (NewComments sorts by it).
ALTER TABLE lemmy_posts ADD COLUMN newest_comment_time_necro timestamp with time zone;
UPDATE lemmy_posts SET newest_comment_time_necro = newest_comment_time;
ALTER TABLE lemmy_posts ALTER COLUMN newest_comment_time_necro SET NOT NULL;

CREATE OR REPLACE FUNCTION lemmy_posts_rank() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
  BEGIN
    NEW.newest_comment_time_necro := coalesce(NEW.newest_comment_time_necro, NEW.published);
    NEW.hot_rank := lemmy_hot_rank(NEW.score, NEW.published);
    NEW.hot_rank_active := lemmy_hot_rank(NEW.score, NEW.newest_comment_time_necro);
    RETURN NEW;
  END
  $$;

CREATE OR REPLACE FUNCTION lemmy_comments_count() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
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
  $$;

CREATE OR REPLACE FUNCTION lemmy_votes_count() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
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
  $$;
