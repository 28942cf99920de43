-- Link publishers (issue 36), as Mastodon's preview_card_providers: the domain a trending link is on, which a
-- moderator approves or rejects once for all its links (store/trend-publishers.ts). A refresh adds the publisher of
-- each link it counts, unless one already covers the link's host (Mastodon's matching_domain: the longest suffix).
-- `trendable` is the verdict (null: unreviewed); `requested_review_at` is Mastodon's, kept for its entity's shape.
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
