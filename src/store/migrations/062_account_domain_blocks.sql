-- Issue 36: a member's own domain blocks (Mastodon's AccountDomainBlock), follow suggestions and the directory.
-- A member's domain block hides every account of that exact domain from what the member reads (store/visibility.ts
-- silencedBy), so accounts are also found by their domain.
CREATE TABLE account_domain_blocks (
  id bigint PRIMARY KEY DEFAULT timestamp_id(now()),
  account_id bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  domain text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX account_domain_blocks_account_domain ON account_domain_blocks (account_id, domain);
CREATE INDEX accounts_domain ON accounts (lower(domain));

-- Accounts staff feature in follow suggestions (Mastodon's bootstrap_timeline_accounts setting, its `featured` source).
CREATE TABLE suggestion_features (
  account_id bigint PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Suggestions a member dismissed (Mastodon's FollowRecommendationMute): never suggested to them again.
CREATE TABLE suggestion_dismissals (
  account_id bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  target_account_id bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, target_account_id)
);
