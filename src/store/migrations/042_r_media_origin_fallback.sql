-- Issue 17 (helper R): a member's choice to let their browser load a remote post's media from its origin when our
-- media proxy fails. Off by default: no member's browser contacts an origin unless they chose it.
ALTER TABLE users ADD COLUMN media_origin_fallback boolean NOT NULL DEFAULT false;
