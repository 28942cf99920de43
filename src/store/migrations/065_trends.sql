-- Trends (issue 36), as Mastodon's Trends::Tags, ::Statuses and ::Links: the ranked lists a supervised actor
-- refreshes every few minutes (store/trends.ts refresh), so every node serves the same lists and no request scores
-- anything. Staff review is kept apart from the scores, which each refresh rewrites.
--
-- links: the link a status is about (Mastodon's preview card: the first link that is no mention or hashtag), keyed by
-- its normalized URL (text/status-links.ts). The card's fetched fields come with issue 38; until then the title is
-- the anchor's text when it says more than the URL.
CREATE TABLE links (
  id         bigint DEFAULT timestamp_id(now()) NOT NULL,
  url        text NOT NULL,
  title      text DEFAULT ''::text NOT NULL,
  created_at timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT links_pkey PRIMARY KEY (id),
  CONSTRAINT links_url_key UNIQUE (url)
);

-- Written with the status (store/statuses.ts create): the link timeline reads it newest first by link.
CREATE TABLE status_links (
  status_id bigint NOT NULL,
  link_id   bigint NOT NULL,
  CONSTRAINT status_links_pkey PRIMARY KEY (status_id, link_id),
  CONSTRAINT status_links_status_id_fkey FOREIGN KEY (status_id) REFERENCES statuses(id) ON DELETE CASCADE,
  CONSTRAINT status_links_link_id_fkey FOREIGN KEY (link_id) REFERENCES links(id) ON DELETE CASCADE
);
CREATE INDEX status_links_link ON status_links USING btree (link_id, status_id DESC);

-- One row per candidate of the last refresh: its decaying score, and the peak it decays from (tags and links, as
-- Mastodon's max_score and max_score_at). `listed`: the score is at or above the kind's decay threshold, so the
-- item may be shown. `history`: a tag's or link's last 7 days, as the client API's History entities.
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
  CONSTRAINT trends_kind_check CHECK (kind IN ('tag', 'status', 'link'))
);
CREATE INDEX trends_ranked ON trends USING btree (kind, score DESC, item_id DESC) WHERE listed;

-- A moderator's review of a tag, status or link (Mastodon's trendable and reviewed_at): approved may trend, rejected
-- never does. Without a row the item is unreviewed: it trends unless the operator's "trends need review" is on.
CREATE TABLE trend_reviews (
  kind        text NOT NULL,
  item_id     bigint NOT NULL,
  trendable   boolean NOT NULL,
  reviewed_by bigint,
  reviewed_at timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT trend_reviews_pkey PRIMARY KEY (kind, item_id),
  CONSTRAINT trend_reviews_kind_check CHECK (kind IN ('tag', 'status', 'link')),
  CONSTRAINT trend_reviews_reviewed_by_fkey FOREIGN KEY (reviewed_by) REFERENCES accounts(id) ON DELETE SET NULL
);
