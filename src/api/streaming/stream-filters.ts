// The streaming side of content filters (views/filter-apply.ts): which context a stream shows statuses in, and for
// one status the payloads of the subscribers whose filters match it. Everyone else keeps the one shared payload.
import type { FilterContext } from '../../store/filters.js';
import { isHidden, type FilterCache, type ViewerFilters } from '../../views/filter-apply.js';
import type { Subscription } from './channels.js';
import type { StreamClient } from './hub.js';

type Entity = Record<string, unknown>;

/** The filter context of a stream that shows statuses (user and lists: home; public and hashtags: public). */
export function streamContext(sub: Subscription): FilterContext | null {
  if (sub.channel === 'user' || sub.channel === 'list') return 'home';
  if (sub.channel.startsWith('public') || sub.channel.startsWith('hashtag')) return 'public';
  return null;
}

export class StreamFilters {
  constructor(private readonly cache: FilterCache) {}

  /**
   * For a status rendered as base: `<account> <context>` → that viewer's payload with `filtered`, or null when a
   * hide filter keeps it from them. Only viewers with filters are looked at (known without a query when cached).
   */
  async forStream(clients: Iterable<StreamClient>, base: Entity, payloadFor: (viewer: string) => string): Promise<Map<string, string | null>> {
    const out = new Map<string, string | null>();
    const contexts = new Map<string, Set<FilterContext>>();
    for (const c of clients) {
      if (this.cache.peek(c.accountId)?.empty) continue;
      for (const sub of c.subs.values()) {
        const ctx = streamContext(sub);
        if (!ctx) continue;
        let set = contexts.get(c.accountId);
        if (!set) contexts.set(c.accountId, (set = new Set()));
        set.add(ctx);
      }
    }
    if (contexts.size === 0) return out;
    const filters = new Map<string, ViewerFilters>();
    await Promise.all([...contexts.keys()].map(async (v) => filters.set(v, await this.cache.of(v))));
    const now = Date.now();
    for (const [viewer, set] of contexts) {
      const f = filters.get(viewer)!;
      for (const ctx of set) {
        const results = f.results(base, ctx, now);
        if (results.length === 0) continue;
        if (isHidden(results)) {
          out.set(`${viewer} ${ctx}`, null);
          continue;
        }
        const e = JSON.parse(payloadFor(viewer)) as Entity;
        e['filtered'] = results;
        if (e['reblog']) (e['reblog'] as Entity)['filtered'] = results;
        out.set(`${viewer} ${ctx}`, JSON.stringify(e));
      }
    }
    return out;
  }
}
