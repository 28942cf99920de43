-- The text of an incoming actor Update as received: the identity statements it carries are kept as their peer
-- wrote them (jsonb normalises key order, escapes and numbers).
ALTER TABLE inbox_jobs ADD COLUMN raw text;
