-- A member's avatar and header (files under the data directory, named by random ids) and posting defaults
-- (update_credentials' source[privacy], source[sensitive], source[language]).
ALTER TABLE accounts ADD COLUMN avatar_file text, ADD COLUMN header_file text;
CREATE UNIQUE INDEX accounts_avatar_file ON accounts (avatar_file) WHERE avatar_file IS NOT NULL;
CREATE UNIQUE INDEX accounts_header_file ON accounts (header_file) WHERE header_file IS NOT NULL;
ALTER TABLE users
  ADD COLUMN default_privacy smallint NOT NULL DEFAULT 0 CHECK (default_privacy BETWEEN 0 AND 3),
  ADD COLUMN default_sensitive boolean NOT NULL DEFAULT false,
  ADD COLUMN default_language text;
