-- Mastodon's account moderation (issue 17, helper adm): a moderator silences an account (its posts kept out of the
-- public feeds, as a silenced domain's are) or marks its media sensitive, local or remote; suspension (043) now
-- covers local members too.
ALTER TABLE accounts ADD COLUMN silenced_at timestamptz, ADD COLUMN sensitized_at timestamptz;
