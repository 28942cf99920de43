-- Web Push (issue 18): Mastodon's Web::PushSubscription, one per access token, and the durable queue of pushes.
-- The token's value is kept sealed (AES-256-GCM under a server key), because the payload must carry it back to the
-- client (Mastodon's `access_token` field) while tokens themselves are stored only as hashes.
CREATE TABLE web_push_subscriptions (
  id              bigint PRIMARY KEY DEFAULT timestamp_id(now()),
  access_token_id bigint NOT NULL UNIQUE REFERENCES oauth_tokens ON DELETE CASCADE,
  account_id      bigint NOT NULL REFERENCES accounts ON DELETE CASCADE,
  endpoint        text NOT NULL,
  -- The endpoint's host (with its port): the push queue is worked per host.
  host            text NOT NULL,
  key_p256dh      text NOT NULL,
  key_auth        text NOT NULL,
  sealed_token    text NOT NULL,
  standard        boolean NOT NULL DEFAULT false,
  -- The notification types pushed (Mastodon's data.alerts, only those set true).
  alerts          text[] NOT NULL DEFAULT '{}',
  policy          text NOT NULL DEFAULT 'all' CHECK (policy IN ('all', 'followed', 'follower', 'none')),
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX web_push_subscriptions_account ON web_push_subscriptions (account_id);

-- One push of one notification to one subscription, worked as deliveries are (per host, leased, backed off).
CREATE TABLE push_deliveries (
  id              bigint PRIMARY KEY DEFAULT timestamp_id(now()),
  subscription_id bigint NOT NULL REFERENCES web_push_subscriptions ON DELETE CASCADE,
  notification_id bigint NOT NULL REFERENCES notifications ON DELETE CASCADE,
  host            text NOT NULL,
  attempts        integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  give_up_at      timestamptz NOT NULL DEFAULT now() + interval '1 day',
  lease_until     timestamptz,
  lease_owner     text,
  last_error      text,
  created_at      timestamptz NOT NULL DEFAULT now(),
  UNIQUE (subscription_id, notification_id)
);
CREATE INDEX push_deliveries_due ON push_deliveries (host, next_attempt_at);
CREATE INDEX push_deliveries_next ON push_deliveries (next_attempt_at);

-- Every notification inserted, by whatever statement, queues its pushes in that statement's transaction: one row per
-- subscription of the recipient whose alerts include the type and whose policy admits the sender (Mastodon's
-- PushSubscription#pushable?: followed = the member follows the sender, follower = the sender follows the member).
-- Each host with new rows is told on stoa_work (`push:<host>`) when the transaction commits.
CREATE FUNCTION queue_pushes() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  h record;
BEGIN
  FOR h IN
    WITH queued AS (
      INSERT INTO push_deliveries (subscription_id, notification_id, host)
      SELECT s.id, n.id, s.host FROM new_notifications n JOIN web_push_subscriptions s ON s.account_id = n.account_id
      WHERE n.type = ANY (s.alerts) AND (s.policy = 'all'
        OR (s.policy = 'followed' AND EXISTS (SELECT 1 FROM follows f WHERE f.account_id = n.account_id AND f.target_account_id = n.from_account_id))
        OR (s.policy = 'follower' AND EXISTS (SELECT 1 FROM follows f WHERE f.account_id = n.from_account_id AND f.target_account_id = n.account_id)))
      ON CONFLICT DO NOTHING RETURNING host
    ) SELECT DISTINCT host FROM queued
  LOOP
    PERFORM pg_notify('stoa_work', 'push:' || h.host);
  END LOOP;
  RETURN NULL;
END $$;
CREATE TRIGGER notifications_queue_pushes AFTER INSERT ON notifications
  REFERENCING NEW TABLE AS new_notifications FOR EACH STATEMENT EXECUTE FUNCTION queue_pushes();

-- A revoked token's subscription goes with it (Mastodon deletes it with the token), whichever statement revokes.
CREATE FUNCTION drop_revoked_push_subscription() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM web_push_subscriptions WHERE access_token_id = NEW.id;
  RETURN NULL;
END $$;
CREATE TRIGGER oauth_tokens_drop_push_subscription AFTER UPDATE OF revoked_at ON oauth_tokens
  FOR EACH ROW WHEN (NEW.revoked_at IS NOT NULL) EXECUTE FUNCTION drop_revoked_push_subscription();
