-- Posting cost that does not grow with followers (issue 39; decision 0065): a post's Create goes to its author's
-- REMOTE followers' inboxes (store/follows.ts followerInboxes), which read every follow of the author to keep the
-- remote ones: 12.7 ms a post at 100,000 local followers, in the POST. Each follow now says whether its follower is
-- remote (an account's domain does not change; kept right if it did), and a partial index holds the remote ones, so
-- the query reads the remote followers only: a cost of the deliveries it queues, not of the local audience.
ALTER TABLE follows ADD COLUMN follower_remote boolean NOT NULL DEFAULT false;

UPDATE follows f SET follower_remote = true FROM accounts a WHERE a.id = f.account_id AND a.domain IS NOT NULL;

CREATE INDEX follows_target_remote ON follows (target_account_id) WHERE follower_remote;

CREATE FUNCTION follows_follower_remote() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.follower_remote := EXISTS (SELECT 1 FROM accounts a WHERE a.id = NEW.account_id AND a.domain IS NOT NULL);
  RETURN NEW;
END $$;

CREATE TRIGGER follows_follower_remote BEFORE INSERT OR UPDATE OF account_id ON follows FOR EACH ROW EXECUTE FUNCTION follows_follower_remote();

CREATE FUNCTION follows_of_account_domain() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE follows SET follower_remote = (NEW.domain IS NOT NULL) WHERE account_id = NEW.id;
  RETURN NULL;
END $$;

CREATE TRIGGER follows_account_domain AFTER UPDATE OF domain ON accounts FOR EACH ROW
  WHEN ((OLD.domain IS NULL) IS DISTINCT FROM (NEW.domain IS NULL)) EXECUTE FUNCTION follows_of_account_domain();
