-- Notifications of local members: who did what (follow, follow_request, mention, favourite, reblog …), about which
-- status. One row per (recipient, type, actor, status): a repeated event does not notify twice.
CREATE TABLE notifications (
  id              bigint PRIMARY KEY DEFAULT timestamp_id(now()),
  account_id      bigint NOT NULL REFERENCES accounts ON DELETE CASCADE,
  from_account_id bigint NOT NULL REFERENCES accounts ON DELETE CASCADE,
  type            text NOT NULL,
  status_id       bigint REFERENCES statuses ON DELETE CASCADE,
  created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX notifications_once ON notifications (account_id, type, from_account_id, coalesce(status_id, 0));
CREATE INDEX notifications_account ON notifications (account_id, id DESC);
