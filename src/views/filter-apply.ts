// Content filters applied to rendered statuses, as Mastodon applies a member's CustomFilters: in the context the
// page is shown in (home and lists: home; public and hashtag feeds: public; notifications; a thread; an account's
// statuses), a filter that is not expired matches a status by a keyword (case-insensitive, whole words at word
// boundaries when asked, over its content without markup, content warning, poll options and media descriptions) or
// by naming it (or the status it boosts). The status then carries `filtered: [FilterResult]`; a `hide` filter takes
// it out of the page instead. A member's own statuses are never filtered (as Mastodon's StatusRelationshipsPresenter).
//
// Filters are read once per member and kept per node (FilterCache), dropped on every node when any changes
// (migration 050's `f:<account>` on CACHE_CHANNEL). Most members have none: the node knows who has any, so for the
// others a page costs no statement at all.
import type { Filter, FilterContext, FilterStore } from '../store/filters.js';
import { htmlToPlainText } from '../text/plain-text.js';

type Entity = Record<string, unknown>;

/** Mastodon's Filter entity; `rules` adds its keywords and statuses (the filters API shows them, FilterResult not). */
export function filterEntity(f: Filter, rules = true) {
  return {
    id: f.id,
    title: f.title,
    context: f.context,
    expires_at: f.expiresAt ? f.expiresAt.toISOString() : null,
    filter_action: f.action,
    ...(rules
      ? {
          keywords: f.keywords.map((k) => ({ id: k.id, keyword: k.keyword, whole_word: k.wholeWord })),
          statuses: f.statuses.map((s) => ({ id: s.id, status_id: s.statusId })),
        }
      : {}),
  };
}

export interface FilterResult {
  readonly filter: ReturnType<typeof filterEntity>;
  readonly keyword_matches: string[] | null;
  readonly status_matches: string[] | null;
}

const WORD = /[\p{L}\p{M}\p{N}_]/u;

/** A keyword as Mastodon's CustomFilterKeyword#to_regex: word boundaries only where the keyword has a word character. */
export function keywordRegex(keyword: string, wholeWord: boolean): RegExp {
  // Only syntax characters: with the u flag any other escaped character is an error.
  const escaped = keyword.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  if (!wholeWord) return new RegExp(escaped, 'iu');
  const start = WORD.test(keyword[0] ?? '') ? '(?<![\\p{L}\\p{M}\\p{N}_])' : '';
  const end = WORD.test(keyword.at(-1) ?? '') ? '(?![\\p{L}\\p{M}\\p{N}_])' : '';
  return new RegExp(start + escaped + end, 'iu');
}

interface Compiled {
  readonly filter: Filter;
  readonly entity: ReturnType<typeof filterEntity>;
  readonly keywords: readonly RegExp[];
  readonly statusIds: ReadonlySet<string>;
}

/** One member's filters, compiled once. */
export class ViewerFilters {
  static readonly NONE = new ViewerFilters('', []);
  private readonly compiled: readonly Compiled[];

  constructor(
    readonly accountId: string,
    filters: readonly Filter[],
  ) {
    this.compiled = filters.map((f) => ({
      filter: f,
      entity: filterEntity(f, false),
      keywords: f.keywords.map((k) => keywordRegex(k.keyword, k.wholeWord)),
      statusIds: new Set(f.statuses.map((s) => s.statusId)),
    }));
  }

  get empty(): boolean {
    return this.compiled.length === 0;
  }

  /**
   * The filters of this context (null: of any, as Mastodon answers for a status asked for by id, leaving the
   * client to pick by context) that match a rendered status (a boost is matched by what it boosts).
   */
  results(e: Entity, context: FilterContext | null, now = Date.now()): FilterResult[] {
    if (this.compiled.length === 0) return [];
    const proper = (e['reblog'] as Entity | null) ?? e;
    if ((proper['account'] as Entity | undefined)?.['id'] === this.accountId || (e['account'] as Entity | undefined)?.['id'] === this.accountId) return [];
    let text: string | undefined;
    const out: FilterResult[] = [];
    for (const c of this.compiled) {
      if (context !== null && !c.filter.context.includes(context)) continue;
      if (c.filter.expiresAt && c.filter.expiresAt.getTime() <= now) continue;
      let keywordMatches: string[] | null = null;
      if (c.keywords.length > 0) {
        text ??= searchableText(proper);
        for (const re of c.keywords) {
          const m = re.exec(text);
          if (m) (keywordMatches ??= []).push(m[0]);
        }
      }
      const statusMatches = [e['id'], proper['id']].filter(
        (id, i, all): id is string => typeof id === 'string' && c.statusIds.has(id) && all.indexOf(id) === i,
      );
      if (!keywordMatches && statusMatches.length === 0) continue;
      out.push({ filter: c.entity, keyword_matches: keywordMatches, status_matches: statusMatches.length ? statusMatches : null });
    }
    return out;
  }
}

/** Mastodon's Status#searchable_text: content warning, text, poll options, media descriptions. */
function searchableText(s: Entity): string {
  const poll = s['poll'] as { options?: { title: string }[] } | null;
  const media = (s['media_attachments'] as { description?: string | null }[] | undefined) ?? [];
  return [
    (s['spoiler_text'] as string) || '',
    htmlToPlainText((s['content'] as string) ?? ''),
    (poll?.options ?? []).map((o) => o.title).join('\n\n'),
    media.map((m) => m.description ?? '').join('\n\n'),
  ].join('\n\n');
}

export const isHidden = (results: readonly FilterResult[]) => results.some((r) => r.filter.filter_action === 'hide');

/**
 * A page of rendered statuses in a context: each carries its filter results (and so does the status a boost shows);
 * those a `hide` filter matches are left out when `hide` (timelines; a status asked for by id is shown).
 */
export function applyFilters<T>(list: readonly T[], f: ViewerFilters, context: FilterContext | null, hide = true): T[] {
  if (f.empty) return list as T[];
  const now = Date.now();
  return list.flatMap((x) => {
    const e = x as Entity;
    const results = f.results(e, context, now);
    if (results.length === 0) return [x];
    if (hide && isHidden(results)) return [];
    const reblog = e['reblog'] as Entity | null;
    return [{ ...e, filtered: results, ...(reblog ? { reblog: { ...reblog, filtered: results } } : {}) } as T];
  });
}

/** Each member's filters, kept per node: see the file's head. */
export class FilterCache {
  private readonly byAccount = new Map<string, ViewerFilters>();
  /** Members who have (or may have) filters; null: not known, every read goes to the database. */
  private known: Set<string> | null = null;
  private gen = 0;
  private connected = false;

  constructor(
    private readonly store: FilterStore,
    private readonly maxEntries = 10_000,
  ) {}

  /** The member's filters (none for anonymous readers). */
  async of(accountId: string | null): Promise<ViewerFilters> {
    if (accountId === null) return ViewerFilters.NONE;
    const known = this.known;
    if (known) {
      if (!known.has(accountId)) return ViewerFilters.NONE;
      const hit = this.byAccount.get(accountId);
      if (hit) {
        this.byAccount.delete(accountId); // most recently used last
        this.byAccount.set(accountId, hit);
        return hit;
      }
    }
    const gen = this.gen;
    const v = new ViewerFilters(accountId, await this.store.of(accountId));
    if (this.known && gen === this.gen) {
      this.byAccount.set(accountId, v);
      if (this.byAccount.size > this.maxEntries) this.byAccount.delete(this.byAccount.keys().next().value!);
    }
    return v;
  }

  /** The member's filters when known without a query (none, or cached), else undefined. */
  peek(accountId: string): ViewerFilters | undefined {
    if (!this.known) return undefined;
    return this.known.has(accountId) ? this.byAccount.get(accountId) : ViewerFilters.NONE;
  }

  /** A member's filters changed (on any node). */
  drop(accountId: string): void {
    this.gen++;
    this.byAccount.delete(accountId);
    this.known?.add(accountId);
  }

  /** The change stream is (re)connected or broken: nothing cached is trusted until who has filters is read again. */
  reset(connected: boolean): void {
    this.gen++;
    this.byAccount.clear();
    this.known = null;
    this.connected = connected;
    if (connected) void this.learn();
  }

  private async learn(): Promise<void> {
    while (this.connected && this.known === null) {
      const gen = this.gen;
      let found: Set<string>;
      try {
        found = await this.store.accountsWithFilters();
      } catch {
        return; // stays unknown: reads go to the database until the next reset
      }
      // A change heard meanwhile may be missing from what was read: read again.
      if (this.connected && gen === this.gen) this.known = found;
    }
  }
}
