-- FEP-c390 identity statements of local and remote accounts. document is the statement's JSON text as received: a
-- member's request body byte for byte; for a remote actor, the attachment as its server published it. Statements
-- are shown in the order they were first published; replacing one (same subject) keeps its place.
CREATE TABLE identity_statements (
  id          bigint PRIMARY KEY DEFAULT timestamp_id(now()),
  account_id  bigint NOT NULL REFERENCES accounts ON DELETE CASCADE,
  subject     text NOT NULL,
  document    text NOT NULL,
  expires_at  timestamptz,
  updated_at  timestamptz NOT NULL DEFAULT now(),
  UNIQUE (account_id, subject)
);
