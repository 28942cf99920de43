// Mastodon's OAuth scope vocabulary and the one answer to "does a granted set cover a required scope".
// Broad scopes cover their granular ones (read → read:statuses, admin:read → admin:read:accounts, the deprecated
// follow → its six block/follow/mute scopes); a granular scope covers only itself.

const READ = ['accounts', 'blocks', 'bookmarks', 'favourites', 'filters', 'follows', 'lists', 'mutes', 'notifications', 'search', 'statuses'];
const WRITE = [
  'accounts',
  'blocks',
  'bookmarks',
  'conversations',
  'favourites',
  'filters',
  'follows',
  'lists',
  'media',
  'mutes',
  'notifications',
  'reports',
  'statuses',
];
const ADMIN = ['accounts', 'reports', 'domain_allows', 'domain_blocks', 'ip_blocks', 'email_domain_blocks', 'canonical_email_blocks'];
const FOLLOW = ['read:blocks', 'read:follows', 'read:mutes', 'write:blocks', 'write:follows', 'write:mutes'];

const TOP_LEVEL_SCOPES = ['read', 'write', 'follow', 'push', 'profile', 'admin:read', 'admin:write'] as const;

/** Every scope name a client may register or request, in the order metadata lists them. */
export const ALL_SCOPES: readonly string[] = Object.freeze([
  ...TOP_LEVEL_SCOPES,
  ...READ.map((s) => `read:${s}`),
  ...WRITE.map((s) => `write:${s}`),
  ...ADMIN.map((s) => `admin:read:${s}`),
  ...ADMIN.map((s) => `admin:write:${s}`),
]);

const KNOWN = new Set(ALL_SCOPES);

/** For each granted scope, every scope it covers (itself included). */
const COVERAGE: ReadonlyMap<string, ReadonlySet<string>> = new Map(
  ALL_SCOPES.map((s) => {
    const covered = new Set([s]);
    if (s === 'follow') for (const f of FOLLOW) covered.add(f);
    else if (s === 'read' || s === 'write' || s === 'admin:read' || s === 'admin:write') {
      for (const g of ALL_SCOPES) if (g.startsWith(`${s}:`)) covered.add(g);
    }
    return [s, covered] as const;
  }),
);

/** Splits a space- (or `+`-) separated scope string; duplicates dropped, order kept. */
export function splitScopes(value: string): string[] {
  return [...new Set(value.split(/[\s+]+/).filter((s) => s.length > 0))];
}

/** The first name that is not a scope, if any. */
export function unknownScope(scopes: readonly string[]): string | undefined {
  return scopes.find((s) => !KNOWN.has(s));
}

/** Does the granted set cover the required scope? */
export function covers(granted: readonly string[], required: string): boolean {
  for (const g of granted) if (COVERAGE.get(g)?.has(required)) return true;
  return false;
}

/** Is every requested scope covered by the granted set? */
export function coversAll(granted: readonly string[], requested: readonly string[]): boolean {
  return requested.every((r) => covers(granted, r));
}

/** Does the granted set cover at least one of the scopes a route accepts? */
export function coversAny(granted: readonly string[], acceptable: readonly string[]): boolean {
  return acceptable.some((r) => covers(granted, r));
}

const WORDS: Record<string, string> = {
  read: 'Read all your account’s data',
  write: 'Change all your account’s data',
  follow: 'Change your follows, blocks and mutes',
  push: 'Receive push notifications',
  profile: 'Read only your basic profile information',
  'admin:read': 'Read all data on the server (moderation)',
  'admin:write': 'Act on all data on the server (moderation)',
};

/** The scope in words, for the authorization page. */
export function describeScope(s: string): string {
  const w = WORDS[s];
  if (w) return w;
  const parts = s.split(':');
  const resource = parts[parts.length - 1]!.replace(/_/g, ' ');
  if (s.startsWith('admin:read:')) return `Read ${resource} on the server (moderation)`;
  if (s.startsWith('admin:write:')) return `Act on ${resource} on the server (moderation)`;
  return s.startsWith('read:') ? `Read your ${resource}` : `Change your ${resource}`;
}
