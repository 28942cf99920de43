-- The app a local status was posted with (Mastodon's status.application, shown by clients as "via …"): the column
-- has been there since 005, never written; it now names the app, and loses it when the app is removed.
ALTER TABLE statuses ADD CONSTRAINT statuses_application_fk FOREIGN KEY (application_id) REFERENCES oauth_apps ON DELETE SET NULL;
