-- Streaming (issue 18): what clients are told as it happens, raised by the rows themselves so that every path that
-- writes them (a member's post, a delivered Create, a promotion, an edit, a Delete, a deleted actor) is covered.
-- Each trigger notifies `stoa_stream` inside the writing transaction: PostgreSQL delivers it at commit, to every
-- node, and never for a rollback. The payload carries ids only (NOTIFY allows 8000 bytes); each node reads the rows
-- and renders. A remote history import is never streamed; its promotion by a delivery is an `update`.
CREATE FUNCTION stream_status_event() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    IF NOT NEW.history AND NEW.deleted_at IS NULL THEN
      PERFORM pg_notify('stoa_stream', json_build_object('event', 'update', 'status', NEW.id::text)::text);
    END IF;
  ELSIF OLD.deleted_at IS NULL AND NEW.deleted_at IS NOT NULL THEN
    -- The row stays (soft delete), but the audience is named here too: who followed the author may change later.
    PERFORM pg_notify('stoa_stream', json_build_object('event', 'delete', 'status', NEW.id::text, 'account', NEW.account_id::text,
      'visibility', NEW.visibility)::text);
  ELSIF NEW.deleted_at IS NULL AND OLD.history AND NOT NEW.history THEN
    PERFORM pg_notify('stoa_stream', json_build_object('event', 'update', 'status', NEW.id::text)::text);
  ELSIF NEW.deleted_at IS NULL AND NOT NEW.history AND NEW.edited_at IS DISTINCT FROM OLD.edited_at THEN
    PERFORM pg_notify('stoa_stream', json_build_object('event', 'status.update', 'status', NEW.id::text)::text);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER statuses_stream AFTER INSERT OR UPDATE OF deleted_at, history, edited_at ON statuses
  FOR EACH ROW EXECUTE FUNCTION stream_status_event();

CREATE FUNCTION stream_notification_event() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('stoa_stream', json_build_object('event', 'notification', 'notification', NEW.id::text, 'account', NEW.account_id::text)::text);
  RETURN NULL;
END $$;
CREATE TRIGGER notifications_stream AFTER INSERT ON notifications FOR EACH ROW EXECUTE FUNCTION stream_notification_event();

-- A conversation is told to its member when a status joins it (not when one leaves or it is marked read).
CREATE FUNCTION stream_conversation_event() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' OR NEW.last_status_id > OLD.last_status_id THEN
    PERFORM pg_notify('stoa_stream', json_build_object('event', 'conversation', 'conversation', NEW.id::text, 'account', NEW.account_id::text)::text);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER account_conversations_stream AFTER INSERT OR UPDATE OF last_status_id ON account_conversations
  FOR EACH ROW EXECUTE FUNCTION stream_conversation_event();
