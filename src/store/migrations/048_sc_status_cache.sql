-- The rendered-status cache (issue 19, api/status-cache.ts): every node keeps the viewer-independent JSON of the
-- statuses it rendered, so it must hear when what that JSON is made of changes, whoever changed it and on whichever
-- node. The rows tell, inside the writing transaction (delivered at commit, to every node, never for a rollback):
-- `s:<id>` for a status (its row, its attachments), `a:<id>` for an account (its profile, its moderation state).
-- Polls and counts are not cached (read for every page), so votes, favourites and boosts notify nothing here; only
-- whether a status has a poll is, so a poll added or removed notifies its status.
CREATE FUNCTION status_cache_status() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('stoa_cache', 's:' || OLD.id::text);
  RETURN NULL;
END $$;
CREATE TRIGGER statuses_cache AFTER UPDATE OR DELETE ON statuses
  FOR EACH ROW EXECUTE FUNCTION status_cache_status();

CREATE FUNCTION status_cache_media() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' AND OLD.status_id IS NOT NULL THEN
    PERFORM pg_notify('stoa_cache', 's:' || OLD.status_id::text);
  END IF;
  IF TG_OP <> 'DELETE' AND NEW.status_id IS NOT NULL AND (TG_OP = 'INSERT' OR NEW.status_id IS DISTINCT FROM OLD.status_id) THEN
    PERFORM pg_notify('stoa_cache', 's:' || NEW.status_id::text);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER media_attachments_cache AFTER INSERT OR UPDATE OR DELETE ON media_attachments
  FOR EACH ROW EXECUTE FUNCTION status_cache_media();

CREATE FUNCTION status_cache_poll() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('stoa_cache', 's:' || (CASE WHEN TG_OP = 'DELETE' THEN OLD.status_id ELSE NEW.status_id END)::text);
  RETURN NULL;
END $$;
CREATE TRIGGER polls_cache AFTER INSERT OR DELETE ON polls FOR EACH ROW EXECUTE FUNCTION status_cache_poll();

-- Only the columns an Account entity shows: a refetch that changes nothing, a key or a fetch time, is quiet.
CREATE FUNCTION status_cache_account() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('stoa_cache', 'a:' || NEW.id::text);
  RETURN NULL;
END $$;
CREATE TRIGGER accounts_cache AFTER UPDATE ON accounts FOR EACH ROW
  WHEN ((OLD.username, OLD.domain, OLD.display_name, OLD.note, OLD.locked, OLD.bot, OLD.discoverable, OLD.created_at, OLD.uri,
         OLD.url, OLD.actor_type, OLD.avatar_remote_url, OLD.header_remote_url, OLD.avatar_file, OLD.header_file, OLD.fields,
         OLD.remote_followers_count, OLD.remote_following_count, OLD.remote_statuses_count, OLD.published_at, OLD.deleted_at,
         OLD.suspended_at, OLD.silenced_at, OLD.sensitized_at)
    IS DISTINCT FROM
        (NEW.username, NEW.domain, NEW.display_name, NEW.note, NEW.locked, NEW.bot, NEW.discoverable, NEW.created_at, NEW.uri,
         NEW.url, NEW.actor_type, NEW.avatar_remote_url, NEW.header_remote_url, NEW.avatar_file, NEW.header_file, NEW.fields,
         NEW.remote_followers_count, NEW.remote_following_count, NEW.remote_statuses_count, NEW.published_at, NEW.deleted_at,
         NEW.suspended_at, NEW.silenced_at, NEW.sensitized_at))
  EXECUTE FUNCTION status_cache_account();
