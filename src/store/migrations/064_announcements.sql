-- Announcements (Mastodon's Announcement, issue 36): what staff tell every member, with each member's dismissals and
-- reactions; and the server's rules (Mastodon's Rule), shown in the instance documents and /api/v1/instance/rules,
-- and cited by reports.
-- Streaming, inside the writing transaction (delivered at commit, to every node, on `stoa_stream`): `announcement`
-- when one is published or a published one is edited, `announcement.delete` when a published one is unpublished or
-- deleted, `announcement.reaction` when a reaction is added or taken back. Ids only: each node reads the rows back.
CREATE TABLE announcements (
  id           bigint DEFAULT timestamp_id(now()) PRIMARY KEY,
  text         text NOT NULL CHECK (text <> ''),
  published    boolean NOT NULL DEFAULT false,
  all_day      boolean NOT NULL DEFAULT false,
  starts_at    timestamptz,
  ends_at      timestamptz,
  published_at timestamptz,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now(),
  CHECK (starts_at IS NULL OR ends_at IS NULL OR ends_at > starts_at)
);
CREATE INDEX announcements_published ON announcements (published_at) WHERE published;

CREATE TABLE announcement_dismissals (
  account_id      bigint NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  announcement_id bigint NOT NULL REFERENCES announcements(id) ON DELETE CASCADE,
  created_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, announcement_id)
);
CREATE INDEX announcement_dismissals_announcement ON announcement_dismissals (announcement_id);

CREATE TABLE announcement_reactions (
  announcement_id bigint NOT NULL REFERENCES announcements(id) ON DELETE CASCADE,
  account_id      bigint NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  name            text NOT NULL CHECK (name <> ''),
  created_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (announcement_id, account_id, name)
);
CREATE INDEX announcement_reactions_account ON announcement_reactions (account_id);

CREATE FUNCTION announcements_streamed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    IF OLD.published THEN
      PERFORM pg_notify('stoa_stream', json_build_object('event', 'announcement.delete', 'announcement', OLD.id::text)::text);
    END IF;
  ELSIF NEW.published THEN
    PERFORM pg_notify('stoa_stream', json_build_object('event', 'announcement', 'announcement', NEW.id::text)::text);
  ELSIF TG_OP = 'UPDATE' AND OLD.published THEN
    PERFORM pg_notify('stoa_stream', json_build_object('event', 'announcement.delete', 'announcement', OLD.id::text)::text);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER announcements_streamed AFTER INSERT OR UPDATE OR DELETE ON announcements
  FOR EACH ROW EXECUTE FUNCTION announcements_streamed();

-- Only a published announcement's reactions are news (a deleted announcement's rows go by cascade, unannounced).
CREATE FUNCTION announcement_reactions_streamed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE r announcement_reactions%ROWTYPE;
BEGIN
  r := CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
  IF EXISTS (SELECT 1 FROM announcements WHERE id = r.announcement_id AND published) THEN
    PERFORM pg_notify('stoa_stream',
      json_build_object('event', 'announcement.reaction', 'announcement', r.announcement_id::text, 'name', r.name)::text);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER announcement_reactions_streamed AFTER INSERT OR DELETE ON announcement_reactions
  FOR EACH ROW EXECUTE FUNCTION announcement_reactions_streamed();

CREATE TABLE instance_rules (
  id         bigint DEFAULT timestamp_id(now()) PRIMARY KEY,
  text       text NOT NULL CHECK (text <> ''),
  hint       text NOT NULL DEFAULT '',
  priority   integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- The rules a report cites (Mastodon's Report#rule_ids, a violation's rules); null when it cites none.
ALTER TABLE reports ADD COLUMN rule_ids bigint[];
