-- The local timeline read from its own index (issue 19): from statuses_public it tested every public post newest first
-- until a page of local ones was found (~500 rows a page where one post in twenty is local; a server following much
-- of the fediverse tests far more). Mastodon keeps the same index (index_statuses_local_20190824).
CREATE INDEX statuses_public_local ON statuses (id DESC) WHERE deleted_at IS NULL AND visibility = 0 AND local;
