-- A follow's options (POST /api/v1/accounts/:id/follow reblogs, notify, languages[]): kept on the request too, so
-- they hold once it is accepted. A status notification goes to followers with notify; boosts of accounts followed
-- with show_reblogs false stay out of home; languages (NULL: all) keeps only posts in those languages in home.
ALTER TABLE follows ADD COLUMN languages text[];
ALTER TABLE follow_requests
  ADD COLUMN show_reblogs boolean NOT NULL DEFAULT true,
  ADD COLUMN notify boolean NOT NULL DEFAULT false,
  ADD COLUMN languages text[];
CREATE INDEX follows_notify ON follows (target_account_id) WHERE notify;
