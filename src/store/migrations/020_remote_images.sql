-- Remote avatars and headers, fetched on first view and kept under the data directory, keyed by their URL: a
-- profile that changes its image names a new URL, so nothing here ever needs invalidating.
CREATE TABLE remote_images (
  url          text PRIMARY KEY,
  file_name    text NOT NULL,
  content_type text NOT NULL,
  byte_size    integer NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now()
);
