-- Notification filtering (issue 18), as Mastodon 4.3+: each member's policy (accept, filter or drop notifications
-- from accounts they do not follow, that do not follow them, new accounts, private mentions, limited accounts),
-- filtered notifications kept aside and gathered into one request per sender, and the senders a member accepted.
-- The policy is applied by a trigger on the row itself, so every statement that notifies (a member's action, a
-- delivered activity, a poll's end, a report) is covered, and the push and stream triggers skip what it filters.
ALTER TABLE notifications ADD COLUMN filtered boolean NOT NULL DEFAULT false;
CREATE INDEX notifications_filtered ON notifications (account_id, from_account_id) WHERE filtered;

CREATE TABLE notification_policies (
  account_id           bigint PRIMARY KEY REFERENCES accounts ON DELETE CASCADE,
  for_not_following    text NOT NULL DEFAULT 'accept' CHECK (for_not_following IN ('accept', 'filter', 'drop')),
  for_not_followers    text NOT NULL DEFAULT 'accept' CHECK (for_not_followers IN ('accept', 'filter', 'drop')),
  for_new_accounts     text NOT NULL DEFAULT 'accept' CHECK (for_new_accounts IN ('accept', 'filter', 'drop')),
  for_private_mentions text NOT NULL DEFAULT 'filter' CHECK (for_private_mentions IN ('accept', 'filter', 'drop')),
  for_limited_accounts text NOT NULL DEFAULT 'filter' CHECK (for_limited_accounts IN ('accept', 'filter', 'drop')),
  updated_at           timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE notification_requests (
  id                  bigint PRIMARY KEY DEFAULT timestamp_id(now()),
  account_id          bigint NOT NULL REFERENCES accounts ON DELETE CASCADE,
  from_account_id     bigint NOT NULL REFERENCES accounts ON DELETE CASCADE,
  last_status_id      bigint REFERENCES statuses ON DELETE SET NULL,
  notifications_count integer NOT NULL DEFAULT 0,
  created_at          timestamptz NOT NULL DEFAULT now(),
  updated_at          timestamptz NOT NULL DEFAULT now(),
  UNIQUE (account_id, from_account_id)
);
CREATE INDEX notification_requests_account ON notification_requests (account_id, id DESC);

-- Senders whose notifications pass whatever the policy says (Mastodon's NotificationPermission: an accepted request).
CREATE TABLE notification_permissions (
  account_id      bigint NOT NULL REFERENCES accounts ON DELETE CASCADE,
  from_account_id bigint NOT NULL REFERENCES accounts ON DELETE CASCADE,
  created_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, from_account_id)
);

-- Mastodon's NotifyService conditions: each policy not `accept` whose condition holds votes; drop beats filter.
-- Never filtered: the types Mastodon does not filter, and senders the member accepted.
CREATE FUNCTION apply_notification_policy() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  p record;
  sender record;
  following boolean;
  votes text[] := '{}';
BEGIN
  IF NEW.type IN ('admin.report', 'admin.sign_up', 'poll', 'update', 'moderation_warning') THEN RETURN NEW; END IF;
  IF EXISTS (SELECT 1 FROM notification_permissions WHERE account_id = NEW.account_id AND from_account_id = NEW.from_account_id) THEN
    RETURN NEW;
  END IF;
  SELECT coalesce(np.for_not_following, 'accept') AS not_following, coalesce(np.for_not_followers, 'accept') AS not_followers,
         coalesce(np.for_new_accounts, 'accept') AS new_accounts, coalesce(np.for_private_mentions, 'filter') AS private_mentions,
         coalesce(np.for_limited_accounts, 'filter') AS limited_accounts
    INTO p FROM (SELECT 1) one LEFT JOIN notification_policies np ON np.account_id = NEW.account_id;
  SELECT a.created_at, a.silenced_at IS NOT NULL OR (a.domain IS NOT NULL AND EXISTS (SELECT 1 FROM domain_blocks d
           WHERE d.severity = 'silence' AND (lower(a.domain) = lower(d.domain) OR right(lower(a.domain), length(d.domain) + 1) = '.' || lower(d.domain)))) AS limited
    INTO sender FROM accounts a WHERE a.id = NEW.from_account_id;
  following := EXISTS (SELECT 1 FROM follows f WHERE f.account_id = NEW.account_id AND f.target_account_id = NEW.from_account_id);
  IF p.not_following <> 'accept' AND NOT following THEN votes := votes || p.not_following; END IF;
  -- A follower counts once they have followed for three days (Mastodon's NEW_FOLLOWER_THRESHOLD).
  IF p.not_followers <> 'accept' AND NOT EXISTS (SELECT 1 FROM follows f WHERE f.account_id = NEW.from_account_id
       AND f.target_account_id = NEW.account_id AND f.created_at <= now() - interval '3 days') THEN
    votes := votes || p.not_followers;
  END IF;
  IF p.new_accounts <> 'accept' AND sender.created_at > now() - interval '30 days' THEN votes := votes || p.new_accounts; END IF;
  -- A direct mention from someone not followed, unless it answers one of the member's own posts.
  IF p.private_mentions <> 'accept' AND NEW.type = 'mention' AND NOT following AND EXISTS (SELECT 1 FROM statuses s
       WHERE s.id = NEW.status_id AND s.visibility = 3 AND s.in_reply_to_account_id IS DISTINCT FROM NEW.account_id) THEN
    votes := votes || p.private_mentions;
  END IF;
  IF p.limited_accounts <> 'accept' AND sender.limited AND NOT following THEN votes := votes || p.limited_accounts; END IF;
  IF 'drop' = ANY (votes) THEN RETURN NULL; END IF;
  NEW.filtered := 'filter' = ANY (votes);
  RETURN NEW;
END $$;
CREATE TRIGGER notifications_policy BEFORE INSERT ON notifications FOR EACH ROW EXECUTE FUNCTION apply_notification_policy();

-- A filtered notification joins its sender's request (made on the first), which names the latest post it concerns.
CREATE FUNCTION gather_notification_request() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO notification_requests AS r (account_id, from_account_id, last_status_id, notifications_count)
  VALUES (NEW.account_id, NEW.from_account_id, NEW.status_id, 1)
  ON CONFLICT (account_id, from_account_id) DO UPDATE
    SET notifications_count = r.notifications_count + 1, last_status_id = coalesce(EXCLUDED.last_status_id, r.last_status_id), updated_at = now();
  RETURN NULL;
END $$;
CREATE TRIGGER notifications_gather_request AFTER INSERT ON notifications FOR EACH ROW WHEN (NEW.filtered)
  EXECUTE FUNCTION gather_notification_request();

-- A filtered notification taken back (an unfavourite, a cleared list) leaves its request; an emptied request goes.
CREATE FUNCTION release_notification_request() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM notification_requests WHERE account_id = OLD.account_id AND from_account_id = OLD.from_account_id AND notifications_count <= 1;
  UPDATE notification_requests SET notifications_count = notifications_count - 1
    WHERE account_id = OLD.account_id AND from_account_id = OLD.from_account_id;
  RETURN NULL;
END $$;
CREATE TRIGGER notifications_release_request AFTER DELETE ON notifications FOR EACH ROW WHEN (OLD.filtered)
  EXECUTE FUNCTION release_notification_request();

-- A filtered notification is neither streamed nor pushed (migrations 045 and 046, redefined).
DROP TRIGGER notifications_stream ON notifications;
CREATE TRIGGER notifications_stream AFTER INSERT ON notifications FOR EACH ROW WHEN (NOT NEW.filtered)
  EXECUTE FUNCTION stream_notification_event();

CREATE OR REPLACE FUNCTION queue_pushes() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  h record;
BEGIN
  FOR h IN
    WITH queued AS (
      INSERT INTO push_deliveries (subscription_id, notification_id, host)
      SELECT s.id, n.id, s.host FROM new_notifications n JOIN web_push_subscriptions s ON s.account_id = n.account_id
      WHERE NOT n.filtered AND n.type = ANY (s.alerts) AND (s.policy = 'all'
        OR (s.policy = 'followed' AND EXISTS (SELECT 1 FROM follows f WHERE f.account_id = n.account_id AND f.target_account_id = n.from_account_id))
        OR (s.policy = 'follower' AND EXISTS (SELECT 1 FROM follows f WHERE f.account_id = n.from_account_id AND f.target_account_id = n.account_id)))
      ON CONFLICT DO NOTHING RETURNING host
    ) SELECT DISTINCT host FROM queued
  LOOP
    PERFORM pg_notify('stoa_work', 'push:' || h.host);
  END LOOP;
  RETURN NULL;
END $$;

-- Mastodon's user chosen_languages: the languages a member reads in the public and hashtag feeds (NULL: all).
ALTER TABLE users ADD COLUMN chosen_languages text[];
