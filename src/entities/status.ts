// Status rows → Mastodon's Status entity (entities/Status.md), and a status's versions → StatusEdit. Everything a
// client may rely on is present, with empty lists and nulls for what Stoa does not have (custom emojis, a card not yet fetched). The
// entity is made of two halves: statusParts, the same for every reader (and cached), and the reader's StatusView.
import type { LocalUris } from '../urls/local-uris.js';
import type { Account } from '../store/accounts.js';
import type { Media } from '../store/media.js';
import type { StatusVersion } from '../store/status-edits.js';
import type { Status } from '../store/statuses.js';
import { mediaEntity } from './media.js';
import type { MediaAddresses } from '../urls/media-urls.js';

/** What a status shows whoever reads it: rendered once per node and kept (views/status-cache.ts). */
export interface StatusPartsContext {
  readonly uris: LocalUris;
  readonly author: Account;
  /** The mentioned accounts (rows), in the status's order. */
  readonly mentions: readonly Account[];
  /** The app a local status was posted with. */
  readonly application?: { readonly name: string; readonly website: string | null };
  /** MediaAttachment entities, in order. */
  readonly media: readonly unknown[];
  /** The PreviewCard entity of the link it is about, once fetched (entities/preview-card.ts). */
  readonly card?: unknown;
}

export function statusParts(s: Status, c: StatusPartsContext) {
  return {
    created_at: s.createdAt.toISOString(),
    // A moderator's "sensitive" action marks every post of the account that has media (Mastodon's sensitized).
    sensitive: s.sensitive || (c.author.sensitizedAt !== null && c.media.length > 0),
    uri: statusUri(s, c.author, c.uris),
    url: statusUrl(s, c.author, c.uris),
    edited_at: s.editedAt ? s.editedAt.toISOString() : null,
    // The app it was posted with, as Mastodon shows it (only local statuses have one).
    application: c.application ? { name: c.application.name, website: c.application.website } : undefined,
    media_attachments: c.media,
    mentions: c.mentions.map((m) => ({ id: m.id, username: m.username, url: m.domain ? (m.url ?? m.uri) : c.uris.profile(m.username), acct: acctOf(m) })),
    tags: s.tags.map((name) => ({ name, url: c.uris.tag(name) })),
    card: c.card ?? null,
  };
}

export type StatusParts = ReturnType<typeof statusParts>;

/** What depends on the reader or the moment: counts, the viewer's flags, the poll, reactions, the quote. */
export interface StatusView {
  /** The author as an Account entity. */
  readonly account: unknown;
  readonly repliesCount: number;
  readonly quotesCount: number;
  readonly reblogsCount: number;
  readonly favouritesCount: number;
  /** The viewer's own relation to the status (all false for anonymous readers). */
  readonly favourited: boolean;
  readonly reblogged: boolean;
  readonly bookmarked: boolean;
  readonly pinned: boolean;
  /** The viewer muted the thread. */
  readonly muted: boolean;
  /** The viewer is the author (pinned is only shown to them). */
  readonly own: boolean;
  /** For a boost: the boosted status as an entity. */
  readonly reblog?: unknown;
  readonly poll?: unknown;
  /** Mastodon 4.5's quote: the quoted status when the viewer may see it, or why not. */
  readonly quote?: { state: 'accepted' | 'deleted' | 'unauthorized' | 'revoked'; quoted_status: unknown } | null;
  /** Who may quote it, and may the viewer (quoteApproval). */
  readonly quoteApproval: QuoteApproval;
  /** Emoji reactions, as Pleroma and Akkoma clients read them (url: a custom emoji's image, else null). */
  readonly reactions?: readonly { name: string; count: number; me: boolean; url: string | null }[];
  /** Set on delete: the source text, for delete-and-redraft. */
  readonly withText?: boolean;
}

export function statusUri(s: Status, author: Account, uris: LocalUris): string {
  return s.uri ?? uris.status(author.username, s.id);
}

export function statusUrl(s: Status, author: Account, uris: LocalUris): string | null {
  return s.local ? uris.statusUrl(author.username, s.id) : (s.url ?? s.uri);
}

export function acctOf(a: Account): string {
  return a.domain ? `${a.username}@${a.domain}` : a.username;
}

/** Mastodon 4.5's quote_approval: who may quote automatically (Stoa has no manual approval), and may the viewer. */
export interface QuoteApproval {
  readonly automatic: readonly string[];
  readonly manual: readonly string[];
  /** Mutable: a "followers" policy is settled once the page's follows are read (views/status-views.ts). */
  current_user: 'automatic' | 'manual' | 'denied' | 'unknown';
}

const NO_KEYS: readonly string[] = Object.freeze([]);
const POLICY_KEYS: Readonly<Record<Status['quotePolicy'], readonly string[]>> = Object.freeze({
  public: Object.freeze(['public']),
  followers: Object.freeze(['followers']),
  nobody: NO_KEYS,
});

/**
 * Mastodon's Status#quote_policy_for_account for status `s` (the boosted one, for a boost) and the viewer: anonymous
 * readers, direct posts and boosts are denied, the author may always, a status that is not public or unlisted no
 * one else. `follows` (does the viewer follow the author) matters only to a "followers" policy: without it that case
 * is 'denied' until the caller settles it (needsFollow).
 */
export function quoteApproval(s: Status, viewerId: string | null, follows = false): { approval: QuoteApproval; needsFollow: boolean } {
  const open = s.visibility === 'public' || s.visibility === 'unlisted';
  const policy = open ? s.quotePolicy : 'nobody';
  let current: 'automatic' | 'denied' = 'denied';
  if (viewerId === null || s.reblogOfId || s.visibility === 'direct') current = 'denied';
  else if (viewerId === s.accountId) current = 'automatic';
  else if (open && s.quotePolicy === 'public') current = 'automatic';
  else if (open && s.quotePolicy === 'followers') {
    if (follows) current = 'automatic';
    // Settled later, once the page's follows are read: its own object, which the caller mutates.
    else return { approval: { automatic: POLICY_KEYS[policy], manual: NO_KEYS, current_user: 'denied' }, needsFollow: true };
  }
  return { approval: SETTLED[policy][current], needsFollow: false };
}

/**
 * The settled approvals, one frozen object per policy and answer, shared by every status of every page: a page of
 * statuses makes none, and views/status-json.ts writes each one's JSON once (quoteApprovalJson).
 */
const SETTLED = Object.fromEntries(
  (['public', 'followers', 'nobody'] as const).map((p) => [
    p,
    {
      automatic: Object.freeze({ automatic: POLICY_KEYS[p], manual: NO_KEYS, current_user: 'automatic' }) as QuoteApproval,
      denied: Object.freeze({ automatic: POLICY_KEYS[p], manual: NO_KEYS, current_user: 'denied' }) as QuoteApproval,
    },
  ]),
) as Record<Status['quotePolicy'], Record<'automatic' | 'denied', QuoteApproval>>;

const APPROVAL_JSON = new WeakMap<QuoteApproval, string>();

/** A quote approval's JSON: a settled (frozen, shared) one's is written once. */
export function quoteApprovalJson(a: QuoteApproval): string {
  if (!Object.isFrozen(a)) return JSON.stringify(a);
  let j = APPROVAL_JSON.get(a);
  if (j === undefined) APPROVAL_JSON.set(a, (j = JSON.stringify(a)));
  return j;
}

/**
 * A status as the entity, in Mastodon's key order: first the keys every reader sees alike (views/status-json.ts writes
 * them once per rendered status as text, up to STATIC_END), then what depends on the reader or the moment. One
 * literal, one shape: `application` (none: undefined) and `pinned` (not the author's: undefined) are left out by
 * JSON.stringify, as Mastodon leaves them out. A spread inside a literal made every key after it a slow definition,
 * ~10 % of a home page's Node time with withAccountCounts' (issue 19).
 */
export function statusEntity(s: Status, p: StatusParts, c: StatusView) {
  return {
    id: s.id,
    created_at: p.created_at,
    in_reply_to_id: s.inReplyToId,
    in_reply_to_account_id: s.inReplyToAccountId,
    sensitive: p.sensitive,
    spoiler_text: s.spoilerText,
    visibility: s.visibility,
    language: s.language,
    uri: p.uri,
    url: p.url,
    edited_at: p.edited_at,
    content: s.content,
    application: p.application,
    media_attachments: p.media_attachments,
    mentions: p.mentions,
    tags: p.tags,
    emojis: [] as unknown[],
    card: p.card,
    replies_count: c.repliesCount,
    reblogs_count: c.reblogsCount,
    favourites_count: c.favouritesCount,
    quotes_count: c.quotesCount,
    favourited: c.favourited,
    reblogged: c.reblogged,
    muted: c.muted,
    bookmarked: c.bookmarked,
    pinned: c.own ? c.pinned : undefined,
    filtered: [] as unknown[],
    reblog: c.reblog ?? null,
    account: c.account,
    poll: c.poll ?? null,
    quote: c.quote ?? null,
    quote_approval: c.quoteApproval,
    text: c.withText ? s.text : null,
    pleroma: { emoji_reactions: c.reactions ?? [] },
  };
}

/** Where the keys every reader sees alike end in a status entity's JSON (a quote in a string is escaped: only the key). */
export const STATIC_END = ',"replies_count":';

/**
 * One version of a status as Mastodon's StatusEdit entity: its attachments with the descriptions they had then,
 * and its poll as options only (no `poll` key when it had none, as Mastodon).
 */
/** urlOf: the addresses each attachment is served at (MediaUrls.addresses for the status). */
export function statusEditEntity(v: StatusVersion, account: unknown, media: ReadonlyMap<string, Media>, urlOf: (m: Media) => MediaAddresses) {
  return {
    content: v.content,
    spoiler_text: v.spoilerText,
    sensitive: v.sensitive,
    created_at: v.createdAt.toISOString(),
    account,
    media_attachments: v.mediaIds.flatMap((id, i) => {
      const m = media.get(id);
      return m ? [{ ...mediaEntity(m, urlOf(m)), description: v.mediaDescriptions[i] ?? null }] : [];
    }),
    emojis: [],
    ...(v.pollOptions ? { poll: { options: v.pollOptions.map((title) => ({ title })) } } : {}),
  };
}
