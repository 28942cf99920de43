-- When a poll's end was announced: its author and the members who voted get a `poll` notification once, from
-- whichever node's poll closer gets there first. Polls already over when this arrives count as announced.
ALTER TABLE polls ADD COLUMN closed_at timestamptz;
UPDATE polls SET closed_at = expires_at WHERE expires_at <= now();
CREATE INDEX polls_open ON polls (expires_at) WHERE closed_at IS NULL AND expires_at IS NOT NULL;
