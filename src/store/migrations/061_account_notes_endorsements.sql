-- Issue 36: a member's private notes on accounts, the accounts a member endorses (features on their profile), and
-- Mastodon's account search (Account.search_for) served by an index.

-- One note per (member, account), as Mastodon's account_notes; an empty note is no row.
CREATE TABLE account_notes (
  account_id        bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  target_account_id bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  comment           text NOT NULL,
  created_at        timestamp with time zone DEFAULT now() NOT NULL,
  updated_at        timestamp with time zone DEFAULT now() NOT NULL,
  PRIMARY KEY (account_id, target_account_id)
);
-- The foreign key's cascade when the noted account is deleted.
CREATE INDEX account_notes_target ON account_notes (target_account_id);

-- Endorsements, as Mastodon's account_pins: only followed accounts, paged by the endorsed account's id.
CREATE TABLE account_pins (
  id                bigint DEFAULT timestamp_id(now()) NOT NULL PRIMARY KEY,
  account_id        bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  target_account_id bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  created_at        timestamp with time zone DEFAULT now() NOT NULL,
  UNIQUE (account_id, target_account_id)
);
CREATE INDEX account_pins_target ON account_pins (target_account_id);

-- As Mastodon's Follow#remove_endorsements: a follow that ends (unfollow, block, Undo, Reject, removal from
-- followers) takes its endorsement with it, whichever code path deleted it.
CREATE FUNCTION drop_endorsement_of_follow() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM account_pins WHERE account_id = OLD.account_id AND target_account_id = OLD.target_account_id;
  RETURN NULL;
END $$;
CREATE TRIGGER account_pins_unfollow AFTER DELETE ON follows FOR EACH ROW EXECUTE FUNCTION drop_endorsement_of_follow();

-- Account search (store/accounts.ts search): words of the display name, username and domain, matched by prefix with
-- Mastodon's weights (display name A, username B, domain C), the same expression Mastodon indexes (search_index).
CREATE INDEX accounts_search ON accounts USING gin ((
  setweight(to_tsvector('simple'::regconfig, display_name), 'A') ||
  setweight(to_tsvector('simple'::regconfig, username), 'B') ||
  setweight(to_tsvector('simple'::regconfig, coalesce(domain, '')), 'C')
));
ANALYZE accounts;
