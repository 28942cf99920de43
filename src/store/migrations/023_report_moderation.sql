-- Moderators handle reports (Mastodon's Admin::Reports): who took a report on, who resolved it and when, when it last
-- changed; and the admin.report notification names its report.
ALTER TABLE reports
  ADD COLUMN action_taken_at            timestamptz,
  ADD COLUMN action_taken_by_account_id bigint REFERENCES accounts ON DELETE SET NULL,
  ADD COLUMN assigned_account_id        bigint REFERENCES accounts ON DELETE SET NULL,
  ADD COLUMN updated_at                 timestamptz NOT NULL DEFAULT now();
UPDATE reports SET updated_at = created_at;
-- The moderators' default view: reports still open, newest first.
CREATE INDEX reports_unresolved ON reports (id DESC) WHERE action_taken_at IS NULL;

ALTER TABLE notifications ADD COLUMN report_id bigint REFERENCES reports ON DELETE CASCADE;
-- One admin.report per report: the report joins the "same event" key.
DROP INDEX notifications_once;
CREATE UNIQUE INDEX notifications_once ON notifications (account_id, type, from_account_id, coalesce(status_id, 0), coalesce(report_id, 0));
