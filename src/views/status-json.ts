// Status entities written as JSON text (issue 19): a page of twenty statuses was serialised afresh on every read,
// ~15 % of a timeline's Node time, and as much again in the garbage it left. What every reader sees alike
// (entities/status.ts statusEntity, up to STATIC_END) is written once per rendered status and kept with it; a page
// then writes only counts, flags and the like per status, read from the entity itself. StatusViews names the entities
// it makes (madeOf) with the cached status they were made of; an entity nobody named (one a caller copied to change, as
// filter-apply.ts does) is written by JSON.stringify. Either way the text is JSON.stringify's, byte for byte
// (test/views/status-json.test.ts).
import { type AccountEntity, type AccountJson, accountJsonOf, accountJsonParts } from '../entities/account.js';
import { type QuoteApproval, quoteApprovalJson, STATIC_END } from '../entities/status.js';
import type { CachedStatus } from './status-cache.js';

interface Made {
  /** The entity named: a copy of it carries this record too (spread copies symbol keys), but is not `of`. */
  readonly of: object;
  readonly status: CachedStatus;
  /** The author's entity without counts that the entity's `account` was made of. */
  readonly account: AccountEntity;
}

/**
 * What an entity made by StatusViews was made of, kept on the entity under a symbol (JSON.stringify and Object.keys
 * pass symbols by). A WeakMap of every page's entities cost ~4 % of a home page's Node time in its write barrier
 * and scavenges' ephemeron work.
 */
const MADE = Symbol('made of');
/** Per rendered status and per account entity (both frozen, shared, dropped with the caches' entries). */
const heads = new WeakMap<CachedStatus, string>();
const accountParts = new WeakMap<AccountEntity, AccountJson>();

/** StatusViews: entity e was made of cached status c, its account of the author's entity without counts. */
export function madeOf<E extends object>(e: E, status: CachedStatus, account: AccountEntity): E {
  (e as { [MADE]?: Made })[MADE] = { of: e, status, account };
  return e;
}

type Entity = Record<string, unknown>;

/** One status entity as JSON text. */
export function statusJson(value: unknown): string {
  const m = typeof value === 'object' && value !== null ? (value as { [MADE]?: Made })[MADE] : undefined;
  if (m === undefined || m.of !== value) return JSON.stringify(value);
  const e = value as Entity;
  let head = heads.get(m.status);
  if (head === undefined) {
    // The entity was made of this cached status: its keys up to STATIC_END are the same for every reader.
    const whole = JSON.stringify(value);
    heads.set(m.status, (head = whole.slice(0, whole.indexOf(STATIC_END))));
  }
  let parts = accountParts.get(m.account);
  if (parts === undefined) accountParts.set(m.account, (parts = accountJsonParts(m.account)));
  return `${head},"replies_count":${e['replies_count']},"reblogs_count":${e['reblogs_count']},"favourites_count":${e['favourites_count']},"quotes_count":${e['quotes_count']},"favourited":${e['favourited']},"reblogged":${e['reblogged']},"muted":${e['muted']},"bookmarked":${e['bookmarked']}${e['pinned'] === undefined ? '' : `,"pinned":${e['pinned']}`},"filtered":${JSON.stringify(e['filtered'])},"reblog":${e['reblog'] === null ? 'null' : statusJson(e['reblog'])},"account":${accountJsonOf(parts, e['account'] as AccountEntity)},"poll":${JSON.stringify(e['poll'])},"quote":${JSON.stringify(e['quote'])},"quote_approval":${quoteApprovalJson(e['quote_approval'] as QuoteApproval)},"text":${JSON.stringify(e['text'])},"pleroma":${JSON.stringify(e['pleroma'])}}`;
}

/**
 * A list of status entities as JSON text pieces, appended to `into` and returned: joined, the same as
 * JSON.stringify(list). A page is sent as its pieces (http/text-pieces.ts).
 */
export function pushStatusesJson(list: readonly unknown[], into: string[]): string[] {
  if (list.length === 0) into.push('[]');
  else {
    for (let i = 0; i < list.length; i++) into.push((i ? ',' : '[') + statusJson(list[i]));
    into.push(']');
  }
  return into;
}
