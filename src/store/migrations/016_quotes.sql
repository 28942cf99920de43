-- Quote posts: a status that quotes another (ours, or one we hold); quote_uri keeps a remote quote's target even
-- when we do not hold it.
ALTER TABLE statuses ADD COLUMN quote_of_id bigint REFERENCES statuses ON DELETE SET NULL;
ALTER TABLE statuses ADD COLUMN quote_uri text;
CREATE INDEX statuses_quotes ON statuses (quote_of_id) WHERE quote_of_id IS NOT NULL;
