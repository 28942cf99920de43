// Reading one collection document of an outbox walk, whatever shape the server gives it (P1–P14): a collection
// whose `first` is an IRI, a Link, an {id} or an embedded page; items on the collection itself; `items` or
// `orderedItems` whatever the type says; a single object where an array belongs; `type` as an array or with an
// `as:` prefix; pages without id. `totalItems` is never read (P13). Pure: no fetches, no database.
import { asArray, httpUrl, isRecord } from '../federation/as2.js';

const COLLECTIONS = new Set(['Collection', 'OrderedCollection']);
const PAGES = new Set(['CollectionPage', 'OrderedCollectionPage']);

/** What one fetched document contributes to the walk. */
export interface CollectionView {
  /** The key of the page for loop detection: its id, else the URL we asked for (P8). */
  readonly key: string;
  /** The items of the document (and of an embedded first page), in the order given. */
  readonly items: readonly unknown[];
  /** Where the walk goes next (a `first` to fetch, or the page's `next`); null when nothing is left. */
  readonly next: string | null;
  /** True when the document held items of its own or an embedded page (a page was read); false for a bare outbox. */
  readonly isPage: boolean;
}

/** The type names of a document (an array of them, `as:` prefixes removed, P6). */
function typesOf(doc: Record<string, unknown>): string[] {
  return asArray(doc['type'])
    .filter((t): t is string => typeof t === 'string')
    .map((t) => t.replace(/^(as:|https:\/\/www\.w3\.org\/ns\/activitystreams#)/, ''));
}

/**
 * A reference to a page: an IRI, a Link object (`href`), or an object holding only an `id` (P7). Any absolute URL is
 * returned, whatever its scheme, so that the walk refuses a `file:` or `gopher:` next page (P33) rather than taking
 * it for the end of the collection.
 */
export function pageRef(x: unknown): string | null {
  const first = Array.isArray(x) ? x[0] : x;
  if (typeof first === 'string') return absoluteUrl(first);
  if (!isRecord(first)) return null;
  if (typesOf(first).includes('Link') || (first['href'] !== undefined && first['id'] === undefined)) return absoluteUrl(first['href']);
  return absoluteUrl(first['id']);
}

function absoluteUrl(x: unknown): string | null {
  if (typeof x !== 'string' || x.length === 0 || x.length > 4096) return null;
  try {
    new URL(x);
    return x;
  } catch {
    return null;
  }
}

/**
 * Why a page may not be fetched, or null: a scheme other than http(s) or credentials in the URL (P33, our federation
 * policy, refused before any request; private addresses are refused by the HTTP client's address guard, with the
 * same reason), or another origin than the actor's (P32).
 */
export function pageRefusal(url: string, actorUri: string): 'federation_policy' | 'cross_origin' | null {
  if (httpUrl(url) === null) return 'federation_policy';
  try {
    return new URL(url).origin === new URL(actorUri).origin ? null : 'cross_origin';
  } catch {
    return 'cross_origin';
  }
}

/** An embedded page: an object carrying its items (P2). A bare {id} or Link is a reference, not a page. */
function embeddedPage(x: unknown): Record<string, unknown> | null {
  if (!isRecord(x)) return null;
  return x['orderedItems'] !== undefined || x['items'] !== undefined ? x : null;
}

/** `orderedItems` and `items` both read (P4); a single object counts as one item, `{type: …}` containers as none (P5). */
function itemsOf(doc: Record<string, unknown>): unknown[] {
  const out: unknown[] = [];
  for (const key of ['orderedItems', 'items']) {
    const v = doc[key];
    if (v === undefined || v === null) continue;
    if (isRecord(v) && typesOf(v).some((t) => COLLECTIONS.has(t) || PAGES.has(t))) continue; // owncast: no items at all
    out.push(...asArray(v));
  }
  return out;
}

/** Whether the document is a collection or a page at all (else the job ends as not_a_collection). */
export function isCollectionDoc(doc: Record<string, unknown>): boolean {
  const types = typesOf(doc);
  if (types.some((t) => COLLECTIONS.has(t) || PAGES.has(t))) return true;
  // No type at all: believed when it has the parts of one.
  return types.length === 0 && (doc['orderedItems'] !== undefined || doc['items'] !== undefined || doc['first'] !== undefined);
}

/** One document read: its items (with an embedded first page's), and the next document to fetch. */
export function readCollection(doc: Record<string, unknown>, requested: string): CollectionView {
  const key = httpUrl(doc['id']) ?? requested;
  const own = itemsOf(doc);
  const embedded = embeddedPage(doc['first']);
  if (embedded) {
    // The page came with the collection: read it now, never fetch it again; the walk goes on from its `next`.
    return { key, items: [...own, ...itemsOf(embedded)], next: pageRef(embedded['next']), isPage: true };
  }
  const first = pageRef(doc['first']);
  const next = pageRef(doc['next']);
  // A collection names its first page; a page names its next one. A collection listing items itself (P3) and
  // also a `first` is read for both: dedup by id makes the overlap harmless.
  const isPage = own.length > 0 || (first === null && doc['first'] === undefined);
  return { key, items: own, next: next ?? first, isPage };
}

/** The id an item is known by (an IRI item is its own id); null for items without one. */
export function itemId(item: unknown): string | null {
  if (typeof item === 'string') return httpUrl(item);
  if (!isRecord(item)) return null;
  return httpUrl(item['id']);
}
