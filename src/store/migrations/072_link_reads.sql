-- The /api/v3 adapter's reads (issue 37; docs/decisions/0055-lemmy-posts-and-comments.md). GET post lists the other
-- posts linking the same URL (Lemmy's cross posts): without this index each post view read every post.
CREATE INDEX lemmy_posts_url ON lemmy_posts (url) WHERE url IS NOT NULL;
