-- The link-aggregator adapter (issue 37; /api/v3 as Lemmy 0.19 serves it). A community is a remote Group actor (an
-- accounts row); a post is a status with a title and a link, filed in one community; a comment is a status that
-- replies within a post, placed in the post's tree by `path` (Lemmy's ltree '0.<comment id>.<comment id>…', kept as
-- text); a vote is +1 or -1 by one account on one post or comment, counted from what the community announces and from
-- what members send. Lemmy clients read ids as JSON numbers, so each kind has its own small serial id here, stable per
-- object (statuses and accounts ids are timestamp ids, past 2^53).

CREATE TABLE lemmy_instances (
  id     bigserial PRIMARY KEY,
  -- host[:port], lower-case; '' is this server
  domain text NOT NULL UNIQUE
);

CREATE TABLE lemmy_persons (
  id         bigserial PRIMARY KEY,
  account_id bigint NOT NULL UNIQUE REFERENCES accounts(id) ON DELETE CASCADE
);

CREATE TABLE lemmy_communities (
  id                         bigserial PRIMARY KEY,
  account_id                 bigint NOT NULL UNIQUE REFERENCES accounts(id) ON DELETE CASCADE,
  -- the Group's attributedTo (Lemmy: its moderators collection)
  moderators_url             text,
  posting_restricted_to_mods boolean NOT NULL DEFAULT false,
  nsfw                       boolean NOT NULL DEFAULT false
);

CREATE TABLE lemmy_community_moderators (
  community_id bigint NOT NULL REFERENCES lemmy_communities(id) ON DELETE CASCADE,
  account_id   bigint NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  position     integer NOT NULL DEFAULT 0,
  PRIMARY KEY (community_id, account_id)
);

CREATE TABLE lemmy_posts (
  id                  bigserial PRIMARY KEY,
  status_id           bigint NOT NULL UNIQUE REFERENCES statuses(id) ON DELETE CASCADE,
  community_id        bigint NOT NULL REFERENCES lemmy_communities(id) ON DELETE CASCADE,
  -- the title (the Page's name)
  name                text NOT NULL,
  -- the link (a Link attachment's href, or the Page's url)
  url                 text,
  -- markdown, as Lemmy clients render it (the Page's source when it is markdown)
  body                text NOT NULL DEFAULT '',
  nsfw                boolean NOT NULL DEFAULT false,
  locked              boolean NOT NULL DEFAULT false,
  featured_community  boolean NOT NULL DEFAULT false,
  published           timestamp with time zone NOT NULL,
  upvotes             integer NOT NULL DEFAULT 0,
  downvotes           integer NOT NULL DEFAULT 0,
  score               integer NOT NULL DEFAULT 0,
  comments            integer NOT NULL DEFAULT 0,
  newest_comment_time timestamp with time zone NOT NULL,
  -- Lemmy's ranks, kept current by vote and comment triggers and decayed by a periodic refresh (lemmy_hot_rank)
  hot_rank            double precision NOT NULL DEFAULT 0,
  hot_rank_active     double precision NOT NULL DEFAULT 0
);
CREATE INDEX lemmy_posts_new ON lemmy_posts (published DESC, id DESC);
CREATE INDEX lemmy_posts_community_new ON lemmy_posts (community_id, published DESC, id DESC);
CREATE INDEX lemmy_posts_hot ON lemmy_posts (hot_rank DESC, published DESC, id DESC);
CREATE INDEX lemmy_posts_community_hot ON lemmy_posts (community_id, hot_rank DESC, published DESC, id DESC);
CREATE INDEX lemmy_posts_active ON lemmy_posts (hot_rank_active DESC, published DESC, id DESC);
CREATE INDEX lemmy_posts_community_active ON lemmy_posts (community_id, hot_rank_active DESC, published DESC, id DESC);
CREATE INDEX lemmy_posts_score ON lemmy_posts (score DESC, published DESC, id DESC);
CREATE INDEX lemmy_posts_comments ON lemmy_posts (comments DESC, published DESC, id DESC);
-- the posts whose rank still decays (a week old at most); the refresh walks only these
CREATE INDEX lemmy_posts_ranked ON lemmy_posts (published) WHERE hot_rank > 0 OR hot_rank_active > 0;

CREATE TABLE lemmy_comments (
  id          bigserial PRIMARY KEY,
  status_id   bigint NOT NULL UNIQUE REFERENCES statuses(id) ON DELETE CASCADE,
  post_id     bigint NOT NULL REFERENCES lemmy_posts(id) ON DELETE CASCADE,
  -- '0.<ancestor comment ids>.<own id>'; depth = the number of dots - 1
  path        text NOT NULL,
  body        text NOT NULL DEFAULT '',
  published   timestamp with time zone NOT NULL,
  upvotes     integer NOT NULL DEFAULT 0,
  downvotes   integer NOT NULL DEFAULT 0,
  score       integer NOT NULL DEFAULT 0,
  child_count integer NOT NULL DEFAULT 0,
  hot_rank    double precision NOT NULL DEFAULT 0
);
CREATE INDEX lemmy_comments_post ON lemmy_comments (post_id, path text_pattern_ops);
CREATE INDEX lemmy_comments_path ON lemmy_comments (path text_pattern_ops);

CREATE TABLE lemmy_votes (
  status_id  bigint NOT NULL REFERENCES statuses(id) ON DELETE CASCADE,
  account_id bigint NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  score      smallint NOT NULL CHECK (score IN (-1, 1)),
  -- the Like's or Dislike's id (ours or the voter's), for Undo
  uri        text,
  created_at timestamp with time zone NOT NULL DEFAULT now(),
  PRIMARY KEY (status_id, account_id)
);
CREATE UNIQUE INDEX lemmy_votes_uri ON lemmy_votes (uri) WHERE uri IS NOT NULL;
CREATE INDEX lemmy_votes_account ON lemmy_votes (account_id);

-- Lemmy 0.19's hot_rank: log10(max(2, score + 2)) / (hours + 2)^1.8 for a week, then 0. Uses now(): STABLE.
CREATE FUNCTION lemmy_hot_rank(score integer, published timestamptz) RETURNS double precision
  LANGUAGE sql STABLE
  AS $$
    SELECT CASE
      WHEN extract(epoch FROM (now() - published)) / 3600 >= 0 AND extract(epoch FROM (now() - published)) / 3600 < 168
        THEN log(greatest(2, score + 2)::numeric)::double precision / power(extract(epoch FROM (now() - published))::double precision / 3600 + 2, 1.8)
      ELSE 0.0
    END
  $$;

-- A vote changes its post's or comment's counts and ranks in the same statement's transaction.
CREATE FUNCTION lemmy_votes_count() RETURNS trigger
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
        hot_rank_active = lemmy_hot_rank(score + up - down, newest_comment_time)
      WHERE status_id = sid;
    IF NOT FOUND THEN
      UPDATE lemmy_comments SET upvotes = upvotes + up, downvotes = downvotes + down, score = score + up - down,
          hot_rank = lemmy_hot_rank(score + up - down, published)
        WHERE status_id = sid;
    END IF;
    RETURN NULL;
  END
  $$;
CREATE TRIGGER lemmy_votes_count AFTER INSERT OR UPDATE OF score OR DELETE ON lemmy_votes
  FOR EACH ROW EXECUTE FUNCTION lemmy_votes_count();

-- A comment counts in its post (comments, newest_comment_time, the Active rank) and in each ancestor's child_count.
CREATE FUNCTION lemmy_comments_count() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
  BEGIN
    UPDATE lemmy_posts SET comments = comments + 1,
        newest_comment_time = greatest(newest_comment_time, NEW.published),
        hot_rank_active = lemmy_hot_rank(score, greatest(newest_comment_time, NEW.published))
      WHERE id = NEW.post_id;
    UPDATE lemmy_comments SET child_count = child_count + 1
      WHERE post_id = NEW.post_id AND id <> NEW.id AND NEW.path LIKE path || '.%';
    RETURN NULL;
  END
  $$;
CREATE TRIGGER lemmy_comments_count AFTER INSERT ON lemmy_comments
  FOR EACH ROW EXECUTE FUNCTION lemmy_comments_count();

CREATE FUNCTION lemmy_comments_uncount() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
  BEGIN
    UPDATE lemmy_posts SET comments = greatest(comments - 1, 0) WHERE id = OLD.post_id;
    UPDATE lemmy_comments SET child_count = greatest(child_count - 1, 0)
      WHERE post_id = OLD.post_id AND id <> OLD.id AND OLD.path LIKE path || '.%';
    RETURN NULL;
  END
  $$;
CREATE TRIGGER lemmy_comments_uncount AFTER DELETE ON lemmy_comments
  FOR EACH ROW EXECUTE FUNCTION lemmy_comments_uncount();

-- New posts start ranked.
CREATE FUNCTION lemmy_posts_rank() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
  BEGIN
    NEW.hot_rank := lemmy_hot_rank(NEW.score, NEW.published);
    NEW.hot_rank_active := lemmy_hot_rank(NEW.score, NEW.newest_comment_time);
    RETURN NEW;
  END
  $$;
CREATE TRIGGER lemmy_posts_rank BEFORE INSERT ON lemmy_posts
  FOR EACH ROW EXECUTE FUNCTION lemmy_posts_rank();

CREATE FUNCTION lemmy_comments_rank() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
  BEGIN
    NEW.hot_rank := lemmy_hot_rank(NEW.score, NEW.published);
    RETURN NEW;
  END
  $$;
CREATE TRIGGER lemmy_comments_rank BEFORE INSERT ON lemmy_comments
  FOR EACH ROW EXECUTE FUNCTION lemmy_comments_rank();
