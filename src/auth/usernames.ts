// Username rules shared by sign-up, the CLI and (later) remote account validation. Mastodon's pattern: letters,
// digits and underscores, with dots and dashes allowed inside.
export const USERNAME_PATTERN = /^[a-z0-9_]+([a-z0-9_.-]+[a-z0-9_]+)?$/i;

export const RESERVED_USERNAMES: ReadonlySet<string> = new Set([
  'admin',
  'administrator',
  'root',
  'support',
  'help',
  'webmaster',
  'mod',
  'moderator',
  'postmaster',
  'instance',
  'actor',
  'stoa',
]);
