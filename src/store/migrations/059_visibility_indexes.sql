-- Two indexes for the visibility rules (issue 19).
-- The accounts that block a viewer, read once per statement by the rules (visibility.ts notBlockedBy, silencedBy),
-- found by index rather than by scanning every block; it also serves the foreign key's cascade when a blocked account
-- is deleted (Mastodon keeps the same index, index_blocks_on_target_account_id).
CREATE INDEX blocks_target_account ON blocks (target_account_id, account_id);
-- Whether a notification's sender is deleted (notifications.ts SENDER_LIVE): a search of this small index rather than
-- a read of the sender's row, as accounts_suspended serves the suspended test.
CREATE INDEX accounts_deleted ON accounts (id) WHERE deleted_at IS NOT NULL;
ANALYZE blocks;
ANALYZE accounts;
