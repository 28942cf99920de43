-- Sign-up through the API (POST /api/v1/accounts, Mastodon's AppSignUpService): the application a member signed up
-- with, which alone may later ask for the confirmation e-mail (Api::V1::Emails::ConfirmationsController), and the
-- locale given at sign-up, kept as Mastodon keeps it.
ALTER TABLE users
  ADD COLUMN created_by_application_id bigint REFERENCES oauth_apps(id) ON DELETE SET NULL,
  ADD COLUMN locale text;
