-- Mastodon 4.3 grouped notifications: each favourite, boost and follow notification carries the key of its group,
-- written when it is created ("favourite-<status>-<hour>", "follow-<hour>"; see store/notifications.ts). Rows from
-- before get the hour they were made in (no 12-hour merging, which needs the order they arrived in).
ALTER TABLE notifications ADD COLUMN group_key text;
UPDATE notifications SET group_key = type || coalesce('-' || status_id, '') || '-' || floor(extract(epoch FROM created_at) / 3600)::bigint
  WHERE type IN ('favourite', 'reblog', 'follow');
CREATE INDEX notifications_group_key ON notifications (account_id, group_key) WHERE group_key IS NOT NULL;

-- Direct-message threads as each local member sees them (Mastodon's account_conversations): one row per member,
-- thread and set of other participants, holding the direct statuses of that thread the member was part of. The
-- thread is the id of the first status of the reply chain we hold (or the uri it replies to, when we do not hold
-- that one). Deleting a conversation removes the row; the next message makes a new one.
CREATE TABLE account_conversations (
  id              bigint PRIMARY KEY DEFAULT timestamp_id(now()),
  account_id      bigint NOT NULL REFERENCES accounts ON DELETE CASCADE,
  thread          text NOT NULL,
  participant_ids bigint[] NOT NULL,  -- sorted, without account_id
  status_ids      bigint[] NOT NULL,
  last_status_id  bigint NOT NULL,
  unread          boolean NOT NULL DEFAULT false,
  UNIQUE (account_id, thread, participant_ids)
);
CREATE INDEX account_conversations_list ON account_conversations (account_id, last_status_id DESC);
CREATE INDEX account_conversations_statuses ON account_conversations USING gin (status_ids);
