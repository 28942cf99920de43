-- Time-ordered 64-bit ids (milliseconds << 16 | sequence), like Mastodon's: entity ids sort by creation time and
-- a post's id can be derived from its published time.
CREATE SEQUENCE timestamp_id_seq;
CREATE FUNCTION timestamp_id(ts timestamptz) RETURNS bigint
  LANGUAGE sql VOLATILE AS
$$ SELECT ((floor(extract(epoch FROM ts) * 1000)::bigint) << 16) | (nextval('timestamp_id_seq') & 65535) $$;

-- Instance-wide settings an operator changes at run time (and generated secrets).
CREATE TABLE settings (
  key        text PRIMARY KEY,
  value      jsonb NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Roles carry a permission bit set with Mastodon's bit positions (UserRole::FLAGS).
CREATE TABLE roles (
  id          bigint PRIMARY KEY,
  name        text NOT NULL UNIQUE,
  permissions bigint NOT NULL DEFAULT 0,
  color       text NOT NULL DEFAULT '',
  highlighted boolean NOT NULL DEFAULT false,
  position    integer NOT NULL
);
INSERT INTO roles (id, name, permissions, color, highlighted, position) VALUES
  (0, 'everyone',  65536,   '',        false, -1),   -- invite_users
  (1, 'Moderator', 1115932, '',        true,  10),   -- view_dashboard, view_audit_log, manage_reports, manage_users, manage_appeals, manage_taxonomies, view_feeds, invite_users
  (2, 'Admin',     2097150, '#8a73ff', true,  100),  -- every permission but administrator
  (3, 'Owner',     1,       '#ff3838', true,  1000); -- administrator (implies all)

-- Accounts are actors: local (domain IS NULL) and, later, remote.
CREATE TABLE accounts (
  id            bigint PRIMARY KEY DEFAULT timestamp_id(now()),
  username      text NOT NULL,
  domain        text,
  display_name  text NOT NULL DEFAULT '',
  note          text NOT NULL DEFAULT '',
  locked        boolean NOT NULL DEFAULT false,
  bot           boolean NOT NULL DEFAULT false,
  discoverable  boolean,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX accounts_handle ON accounts (lower(username), coalesce(lower(domain), ''));

-- Users are the local people who sign in; one per local account.
CREATE TABLE users (
  id                 bigint PRIMARY KEY DEFAULT timestamp_id(now()),
  account_id         bigint NOT NULL UNIQUE REFERENCES accounts ON DELETE CASCADE,
  email              text NOT NULL,
  password_hash      text NOT NULL,
  role_id            bigint NOT NULL DEFAULT 0 REFERENCES roles,
  approved           boolean NOT NULL DEFAULT true,
  disabled           boolean NOT NULL DEFAULT false,
  sign_up_reason     text,
  created_at         timestamptz NOT NULL DEFAULT now(),
  last_sign_in_at    timestamptz,
  last_sign_in_ip    text
);
CREATE UNIQUE INDEX users_email ON users (lower(email));
CREATE INDEX users_pending ON users (created_at) WHERE NOT approved;

-- Browser sessions: only a hash of the cookie's secret is stored.
CREATE TABLE sessions (
  id_hash      bytea PRIMARY KEY,
  user_id      bigint NOT NULL REFERENCES users ON DELETE CASCADE,
  created_at   timestamptz NOT NULL DEFAULT now(),
  last_seen_at timestamptz NOT NULL DEFAULT now(),
  ip           text NOT NULL DEFAULT '',
  user_agent   text NOT NULL DEFAULT ''
);
CREATE INDEX sessions_user ON sessions (user_id);
