-- Scheduled posts, and who may quote a status (with revoked quotes): issue 36.
-- Scheduled posts (Mastodon's ScheduledStatus): a member's post kept with the parameters it was made with, published
-- at `scheduled_at` by whichever node's scheduled-publisher claims it first (a row lock held through the status's
-- creation, in one transaction: see store/scheduled-statuses.ts). Uploads attached when scheduling are reserved for
-- it (media_attachments.scheduled_status_id): no other post may take them meanwhile; deleting the scheduled post
-- frees them.
CREATE TABLE scheduled_statuses (
  id              bigint PRIMARY KEY DEFAULT timestamp_id(now()),
  account_id      bigint NOT NULL REFERENCES accounts ON DELETE CASCADE,
  scheduled_at    timestamptz NOT NULL,
  params          jsonb NOT NULL,
  -- The Idempotency-Key of the request that scheduled it: a retry gets this scheduled post back.
  idempotency_key text,
  created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX scheduled_statuses_due ON scheduled_statuses (scheduled_at);
CREATE INDEX scheduled_statuses_account ON scheduled_statuses (account_id, id);
CREATE UNIQUE INDEX scheduled_statuses_idempotency ON scheduled_statuses (account_id, idempotency_key) WHERE idempotency_key IS NOT NULL;

ALTER TABLE media_attachments ADD COLUMN scheduled_status_id bigint REFERENCES scheduled_statuses ON DELETE SET NULL;
CREATE INDEX media_attachments_scheduled ON media_attachments (scheduled_status_id) WHERE scheduled_status_id IS NOT NULL;

-- A scheduled post made or moved: every node's scheduled-publisher looks again for the earliest due time.
CREATE FUNCTION scheduled_statuses_wake() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('stoa_work', 'scheduled');
  RETURN NULL;
END $$;
CREATE TRIGGER scheduled_statuses_wake AFTER INSERT OR UPDATE OF scheduled_at ON scheduled_statuses
  FOR EACH STATEMENT EXECUTE FUNCTION scheduled_statuses_wake();

-- Who may quote a status (Mastodon 4.5's quote_approval_policy, as its author set it at posting or through PUT
-- /api/v1/statuses/:id/interaction_policy): public, followers or nobody. Only a public or unlisted status can be
-- quoted at all, whatever this says. Remote statuses keep the default (Stoa reads no remote interaction policy).
ALTER TABLE statuses ADD COLUMN quote_policy text NOT NULL DEFAULT 'public' CHECK (quote_policy IN ('public', 'followers', 'nobody'));

-- A quote its quoted author revoked (POST /api/v1/statuses/:id/quotes/:quoting_status_id/revoke): quote_of_id is
-- cleared (counted out of quotes_count by the status_counts trigger) and the quoting status shows the quote as revoked.
ALTER TABLE statuses ADD COLUMN quote_revoked boolean NOT NULL DEFAULT false;
