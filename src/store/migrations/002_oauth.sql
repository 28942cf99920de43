-- OAuth 2: registered client applications, authorization codes and access tokens. Secrets, codes and tokens are
-- stored only as SHA-256 hashes.
CREATE TABLE oauth_apps (
  id            bigint PRIMARY KEY DEFAULT timestamp_id(now()),
  name          text NOT NULL,
  website       text,
  redirect_uris text[] NOT NULL,
  scopes        text[] NOT NULL,
  client_id     text NOT NULL UNIQUE,
  secret_hash   bytea NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now()
);

-- Single use: exchanging deletes the row whatever the outcome.
CREATE TABLE oauth_codes (
  code_hash      bytea PRIMARY KEY,
  app_id         bigint NOT NULL REFERENCES oauth_apps ON DELETE CASCADE,
  user_id        bigint NOT NULL REFERENCES users ON DELETE CASCADE,
  redirect_uri   text NOT NULL,
  scopes         text[] NOT NULL,
  code_challenge text,
  expires_at     timestamptz NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX oauth_codes_expiry ON oauth_codes (expires_at);
CREATE INDEX oauth_codes_user_app ON oauth_codes (user_id, app_id);

-- user_id is NULL for application tokens (client_credentials). Revoked tokens are kept (revoked_at) so the member's
-- history stays explainable; they never authenticate again.
CREATE TABLE oauth_tokens (
  id           bigint PRIMARY KEY DEFAULT timestamp_id(now()),
  token_hash   bytea NOT NULL UNIQUE,
  app_id       bigint NOT NULL REFERENCES oauth_apps ON DELETE CASCADE,
  user_id      bigint REFERENCES users ON DELETE CASCADE,
  scopes       text[] NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  revoked_at   timestamptz
);
CREATE INDEX oauth_tokens_user_app ON oauth_tokens (user_id, app_id) WHERE revoked_at IS NULL;
CREATE INDEX oauth_tokens_app ON oauth_tokens (app_id) WHERE revoked_at IS NULL;
