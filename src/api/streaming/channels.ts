// Mastodon's streams: their names, parameters and the scopes each needs (its streaming server's checkScopes and
// channelNameToIds). A public stream needs only a valid token; the others `read` or `read:statuses`, except
// `user:notification` (`read` or `read:notifications`). The user stream carries notifications only when the token
// may read them.
import { coversAny } from '../../oauth/scopes.js';
import { tagKey } from '../../store/statuses.js';

export const CHANNELS = [
  'user',
  'user:notification',
  'public',
  'public:media',
  'public:local',
  'public:local:media',
  'public:remote',
  'public:remote:media',
  'hashtag',
  'hashtag:local',
  'list',
  'direct',
] as const;
export type Channel = (typeof CHANNELS)[number];

const PUBLIC: ReadonlySet<string> = new Set([
  'public',
  'public:media',
  'public:local',
  'public:local:media',
  'public:remote',
  'public:remote:media',
  'hashtag',
  'hashtag:local',
]);

/** One subscription of a client: a channel with its tag or list. */
export interface Subscription {
  readonly channel: Channel;
  /** What each message names as its stream: `["hashtag", "foo"]`, `["list", "12"]`, `["user"]`. */
  readonly stream: readonly string[];
  /** hashtag: the tag's key (case-folded). */
  readonly tag?: string;
  /** list: the list's id. */
  readonly list?: string;
  /** One key per distinct subscription (subscribing twice is once). */
  readonly key: string;
}

/** A refusal, as Mastodon's streaming server words and numbers it (400 RequestError, 401 AuthenticationError). */
export class StreamError extends Error {
  constructor(
    readonly status: 400 | 401 | 404,
    message: string,
  ) {
    super(message);
  }
}

function isChannel(name: string): name is Channel {
  return (CHANNELS as readonly string[]).includes(name);
}

/** The first value of a query parameter or message field, as Mastodon's firstParam reads it. */
function first(v: unknown): string | undefined {
  const x = Array.isArray(v) ? v[0] : v;
  return typeof x === 'string' ? x : typeof x === 'number' ? String(x) : undefined;
}

/**
 * The subscription named by `stream` and its parameters (tag, list, only_media), or why not. Scopes are checked
 * here; a list's owner is checked by the caller (it needs the database).
 */
export function subscriptionOf(streamParam: unknown, params: Record<string, unknown>, scopes: readonly string[]): Subscription {
  const named = first(streamParam);
  if (named === undefined || !isChannel(named)) throw new StreamError(400, 'Unknown stream type');
  let name: Channel = named;
  if (!PUBLIC.has(name)) {
    const need = name === 'user:notification' ? ['read:notifications'] : ['read:statuses'];
    if (!coversAny(scopes, need)) throw new StreamError(401, 'Access token does not have the required scopes');
  }
  const onlyMedia = ['1', 'true', 't', 'on'].includes((first(params['only_media']) ?? '').toLowerCase());
  if (onlyMedia && (name === 'public' || name === 'public:local' || name === 'public:remote')) name = `${name}:media` as const;
  if (name === 'hashtag' || name === 'hashtag:local') {
    const tag = first(params['tag']);
    if (!tag) throw new StreamError(400, 'Missing tag name parameter');
    const key = tagKey(tag.replace(/^#/, ''));
    return { channel: name, stream: [name, tag], tag: key, key: `${name}\n${key}` };
  }
  if (name === 'list') {
    const list = first(params['list']);
    if (!list) throw new StreamError(400, 'Missing list name parameter');
    return { channel: name, stream: [name, list], list, key: `list\n${list}` };
  }
  return { channel: name, stream: [name], key: name };
}

/** The SSE path's channel (`/api/v1/streaming/public/local` → public:local), as Mastodon's channelNameFromPath. */
export const SSE_PATHS: Readonly<Record<string, Channel>> = {
  '/api/v1/streaming/user': 'user',
  '/api/v1/streaming/user/notification': 'user:notification',
  '/api/v1/streaming/public': 'public',
  '/api/v1/streaming/public/media': 'public:media',
  '/api/v1/streaming/public/local': 'public:local',
  '/api/v1/streaming/public/local/media': 'public:local:media',
  '/api/v1/streaming/public/remote': 'public:remote',
  '/api/v1/streaming/public/remote/media': 'public:remote:media',
  '/api/v1/streaming/hashtag': 'hashtag',
  '/api/v1/streaming/hashtag/local': 'hashtag:local',
  '/api/v1/streaming/list': 'list',
  '/api/v1/streaming/direct': 'direct',
};
