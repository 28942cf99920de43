-- Fixes to 070's ranks (issue 37), found by test/store/link-aggregator.test.ts.
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
CREATE INDEX lemmy_comments_recent ON lemmy_comments (published, id);
CREATE INDEX lemmy_comments_ranked ON lemmy_comments (published) WHERE hot_rank > 0;
