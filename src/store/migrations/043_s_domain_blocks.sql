-- Federation policy (issue 17, helper S): the operator's domain blocks, as Mastodon's DomainBlock, and account
-- suspension. A block covers its domain and every subdomain. Suspending a domain suspends its known accounts with
-- suspended_at = the block's created_at, so lifting the block unsuspends exactly those (as Mastodon does).
CREATE TABLE domain_blocks (
  id bigint PRIMARY KEY DEFAULT timestamp_id(now()),
  domain text NOT NULL,
  severity text NOT NULL DEFAULT 'silence' CHECK (severity IN ('silence', 'suspend', 'noop')),
  reject_media boolean NOT NULL DEFAULT false,
  reject_reports boolean NOT NULL DEFAULT false,
  private_comment text,
  public_comment text,
  obfuscate boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX domain_blocks_domain ON domain_blocks (lower(domain));

ALTER TABLE accounts ADD COLUMN suspended_at timestamptz;
