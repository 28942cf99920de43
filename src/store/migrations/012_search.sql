-- Full-text search over statuses' text (HTML tags removed; the 'simple' configuration: no language stemming, so
-- every language is searched alike) and prefix search over account names.
CREATE INDEX statuses_search ON statuses USING gin (to_tsvector('simple', regexp_replace(content || ' ' || spoiler_text, '<[^>]*>', ' ', 'g')))
  WHERE deleted_at IS NULL AND reblog_of_id IS NULL;
CREATE INDEX accounts_username_prefix ON accounts (lower(username) text_pattern_ops);
CREATE INDEX tags_key_prefix ON tags (key text_pattern_ops);
