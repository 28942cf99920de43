-- Link preview cards (issue 38): Mastodon's PreviewCard, one row per URL (the normalized URL of text/status-links.ts)
-- and shared by every status linking it; status_cards says which status shows which card. A status's card is fetched
-- in the background (card_jobs, claimed under a lease by a card-fetcher on any node), never while posting.
CREATE TABLE preview_cards (
  id                 bigint PRIMARY KEY DEFAULT timestamp_id(now()),
  url                text NOT NULL UNIQUE,
  title              text NOT NULL DEFAULT '',
  description        text NOT NULL DEFAULT '',
  type               text NOT NULL DEFAULT 'link' CHECK (type IN ('link', 'photo', 'video', 'rich')),
  author_name        text NOT NULL DEFAULT '',
  author_url         text NOT NULL DEFAULT '',
  provider_name      text NOT NULL DEFAULT '',
  provider_url       text NOT NULL DEFAULT '',
  -- Only an <iframe> from an https origin, rebuilt by us from an oEmbed answer (services/link-cards.ts); else ''.
  html               text NOT NULL DEFAULT '',
  width              integer NOT NULL DEFAULT 0,
  height             integer NOT NULL DEFAULT 0,
  -- The image as the page named it (never shown to clients), and our copy of it on the media storage, served at
  -- /media_proxy/cards/<id>/image: at most 400×400 as Mastodon keeps it, re-encoded without metadata.
  image_remote_url   text,
  image_file         text,
  image_content_type text,
  image_width        integer,
  image_height       integer,
  image_description  text NOT NULL DEFAULT '',
  blurhash           text,
  embed_url          text NOT NULL DEFAULT '',
  language           text,
  published_at       timestamptz,
  -- The last attempt, successful or not: a URL is not fetched again within a day of it.
  fetched_at         timestamptz,
  -- The last attempt failed (no card is shown): why, in a word.
  error              text,
  created_at         timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE status_cards (
  status_id bigint PRIMARY KEY REFERENCES statuses ON DELETE CASCADE,
  card_id   bigint NOT NULL REFERENCES preview_cards ON DELETE CASCADE
);
CREATE INDEX status_cards_card ON status_cards (card_id);

-- A status waiting for its card: queued in the transaction that stores it, claimed under a lease.
CREATE TABLE card_jobs (
  status_id   bigint PRIMARY KEY REFERENCES statuses ON DELETE CASCADE,
  url         text NOT NULL,
  queued_at   timestamptz NOT NULL DEFAULT now(),
  lease_owner text,
  lease_until timestamptz
);
CREATE INDEX card_jobs_queued ON card_jobs (queued_at);

-- Work queued: every node's card-fetcher looks (as for scheduled posts, once per statement).
CREATE FUNCTION card_jobs_wake() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('stoa_work', 'cards');
  RETURN NULL;
END $$;
CREATE TRIGGER card_jobs_wake AFTER INSERT ON card_jobs FOR EACH STATEMENT EXECUTE FUNCTION card_jobs_wake();

-- A status got its card (or its card changed): every node drops its rendered copy (migration 048's `s:<id>`), and
-- its readers are told by `status.update` (migration 046's event), as after an edit. History rows are never streamed.
CREATE FUNCTION status_cards_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('stoa_cache', 's:' || NEW.status_id::text);
  IF EXISTS (SELECT 1 FROM statuses s WHERE s.id = NEW.status_id AND NOT s.history AND s.deleted_at IS NULL) THEN
    PERFORM pg_notify('stoa_stream', json_build_object('event', 'status.update', 'status', NEW.status_id::text)::text);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER status_cards_changed AFTER INSERT OR UPDATE ON status_cards FOR EACH ROW EXECUTE FUNCTION status_cards_changed();

-- A card refetched (its content changed): every status showing it is rendered again.
CREATE FUNCTION preview_cards_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('stoa_cache', 's:' || c.status_id::text) FROM status_cards c WHERE c.card_id = NEW.id;
  RETURN NULL;
END $$;
CREATE TRIGGER preview_cards_changed AFTER UPDATE ON preview_cards FOR EACH ROW
  WHEN ((OLD.title, OLD.description, OLD.type, OLD.author_name, OLD.author_url, OLD.provider_name, OLD.provider_url, OLD.html,
         OLD.width, OLD.height, OLD.image_file, OLD.image_description, OLD.blurhash, OLD.embed_url, OLD.language,
         OLD.published_at, OLD.error)
    IS DISTINCT FROM
        (NEW.title, NEW.description, NEW.type, NEW.author_name, NEW.author_url, NEW.provider_name, NEW.provider_url, NEW.html,
         NEW.width, NEW.height, NEW.image_file, NEW.image_description, NEW.blurhash, NEW.embed_url, NEW.language,
         NEW.published_at, NEW.error))
  EXECUTE FUNCTION preview_cards_changed();
