-- A comment is deleted softly (statuses.deleted_at), never by removing its lemmy_comments row: its post's `comments`
-- and every ancestor's child_count go down when its status is deleted, as Lemmy 0.19's counts do when a comment is
-- deleted or removed, and up again when it is restored. The row's own DELETE (a status purged) then counts it down
-- only if that has not happened.
CREATE FUNCTION lemmy_comments_soft_uncount() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
  DECLARE
    c lemmy_comments%ROWTYPE;
    d integer := CASE WHEN NEW.deleted_at IS NULL THEN 1 ELSE -1 END;
  BEGIN
    SELECT * INTO c FROM lemmy_comments WHERE status_id = NEW.id;
    IF NOT FOUND THEN RETURN NULL; END IF;
    UPDATE lemmy_posts SET comments = greatest(comments + d, 0) WHERE id = c.post_id;
    UPDATE lemmy_comments SET child_count = greatest(child_count + d, 0)
      WHERE post_id = c.post_id AND id <> c.id AND c.path LIKE path || '.%';
    RETURN NULL;
  END
  $$;
CREATE TRIGGER lemmy_comments_soft_uncount AFTER UPDATE OF deleted_at ON statuses
  FOR EACH ROW WHEN ((OLD.deleted_at IS NULL) <> (NEW.deleted_at IS NULL))
  EXECUTE FUNCTION lemmy_comments_soft_uncount();

CREATE OR REPLACE FUNCTION lemmy_comments_uncount() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
  BEGIN
    -- Counted down already when its status was deleted.
    IF EXISTS (SELECT 1 FROM statuses WHERE id = OLD.status_id AND deleted_at IS NOT NULL) THEN RETURN NULL; END IF;
    UPDATE lemmy_posts SET comments = greatest(comments - 1, 0) WHERE id = OLD.post_id;
    UPDATE lemmy_comments SET child_count = greatest(child_count - 1, 0)
      WHERE post_id = OLD.post_id AND id <> OLD.id AND OLD.path LIKE path || '.%';
    RETURN NULL;
  END
  $$;
