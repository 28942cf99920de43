-- Content filters (Mastodon's v2 filters, issue 18): a member's named filter with the contexts it applies in, what
-- it does there (warn, hide, blur) and when it expires; its keywords; and the statuses it names. Any change notifies,
-- inside the writing transaction (delivered at commit, to every node): `stoa_stream` the member's `filters_changed`
-- (their user stream), and `stoa_cache` `f:<account>`, so every node drops its cached copy of the member's filters.
CREATE TABLE custom_filters (
  id            bigint DEFAULT timestamp_id(now()) PRIMARY KEY,
  account_id    bigint NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  title         text NOT NULL,
  context       text[] NOT NULL,
  filter_action text NOT NULL DEFAULT 'warn' CHECK (filter_action IN ('warn', 'hide', 'blur')),
  expires_at    timestamptz,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  CHECK (context <@ ARRAY['home', 'notifications', 'public', 'thread', 'account']::text[] AND cardinality(context) > 0)
);
CREATE INDEX custom_filters_account ON custom_filters (account_id);

CREATE TABLE custom_filter_keywords (
  id               bigint DEFAULT timestamp_id(now()) PRIMARY KEY,
  custom_filter_id bigint NOT NULL REFERENCES custom_filters(id) ON DELETE CASCADE,
  keyword          text NOT NULL CHECK (keyword <> ''),
  whole_word       boolean NOT NULL DEFAULT true,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX custom_filter_keywords_filter ON custom_filter_keywords (custom_filter_id);

CREATE TABLE custom_filter_statuses (
  id               bigint DEFAULT timestamp_id(now()) PRIMARY KEY,
  custom_filter_id bigint NOT NULL REFERENCES custom_filters(id) ON DELETE CASCADE,
  status_id        bigint NOT NULL REFERENCES statuses(id) ON DELETE CASCADE,
  created_at       timestamptz NOT NULL DEFAULT now(),
  UNIQUE (custom_filter_id, status_id)
);

CREATE FUNCTION filters_changed(account bigint) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF account IS NOT NULL THEN
    PERFORM pg_notify('stoa_stream', json_build_object('event', 'filters_changed', 'account', account::text)::text);
    PERFORM pg_notify('stoa_cache', 'f:' || account::text);
  END IF;
END $$;

CREATE FUNCTION custom_filters_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM filters_changed(CASE WHEN TG_OP = 'DELETE' THEN OLD.account_id ELSE NEW.account_id END);
  RETURN NULL;
END $$;
CREATE TRIGGER custom_filters_changed AFTER INSERT OR UPDATE OR DELETE ON custom_filters
  FOR EACH ROW EXECUTE FUNCTION custom_filters_changed();

-- A keyword or status row names its member through its filter (gone already when the filter's deletion cascades:
-- the filter's own trigger has told then).
CREATE FUNCTION custom_filter_parts_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM filters_changed((SELECT account_id FROM custom_filters
    WHERE id = CASE WHEN TG_OP = 'DELETE' THEN OLD.custom_filter_id ELSE NEW.custom_filter_id END));
  RETURN NULL;
END $$;
CREATE TRIGGER custom_filter_keywords_changed AFTER INSERT OR UPDATE OR DELETE ON custom_filter_keywords
  FOR EACH ROW EXECUTE FUNCTION custom_filter_parts_changed();
CREATE TRIGGER custom_filter_statuses_changed AFTER INSERT OR UPDATE OR DELETE ON custom_filter_statuses
  FOR EACH ROW EXECUTE FUNCTION custom_filter_parts_changed();
