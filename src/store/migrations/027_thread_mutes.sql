-- Muted conversations (Mastodon's "Mute conversation", POST /api/v1/statuses/:id/mute): a member hears nothing more
-- about a thread. A thread is named by its root, the topmost status reachable by in_reply_to_id that we hold (so a
-- remote reply whose parent we never received starts a thread of its own, and a chain deeper than 1000 is cut there;
-- Mastodon keys mutes on a conversation id instead, which remote posts carry or inherit).
CREATE TABLE thread_mutes (
  account_id     bigint NOT NULL REFERENCES accounts ON DELETE CASCADE,
  root_status_id bigint NOT NULL REFERENCES statuses ON DELETE CASCADE,
  created_at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, root_status_id)
);

-- The root of a status's thread (itself when it replies to nothing we hold); bounded, as reply chains may be long.
CREATE FUNCTION thread_root(status bigint) RETURNS bigint LANGUAGE sql STABLE AS $$
  WITH RECURSIVE up (id, parent, depth) AS (
    SELECT id, in_reply_to_id, 0 FROM statuses WHERE id = status
    UNION ALL
    SELECT s.id, s.in_reply_to_id, up.depth + 1 FROM statuses s JOIN up ON s.id = up.parent WHERE up.depth < 1000
  )
  SELECT id FROM up ORDER BY depth DESC LIMIT 1
$$;
