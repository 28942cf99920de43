// Statuses as API entities: authors and mentioned accounts loaded once per page, reply counts in one query.
import type { LocalUris } from '../federation/local-uris.js';
import { statusEntity } from '../entities/status.js';
import type { Account, AccountStore } from '../store/accounts.js';
import type { Status, StatusStore } from '../store/statuses.js';
import type { AccountViews } from './account-views.js';

export class StatusViews {
  constructor(
    private readonly accounts: AccountStore,
    private readonly accountViews: AccountViews,
    private readonly statuses: StatusStore,
    private readonly uris: LocalUris,
  ) {}

  async one(s: Status, viewerId: string | null, opts: { withText?: boolean } = {}) {
    return (await this.many([s], viewerId, opts))[0]!;
  }

  async many(list: readonly Status[], viewerId: string | null, opts: { withText?: boolean } = {}) {
    const ids = new Set<string>();
    for (const s of list) {
      ids.add(s.accountId);
      for (const m of s.mentionIds) ids.add(m);
    }
    const rows = await this.accounts.byIds([...ids]);
    const byId = new Map<string, Account>(rows.map((a) => [a.id, a]));
    const authors = [...new Set(list.map((s) => s.accountId))].map((id) => byId.get(id)).filter((a): a is Account => !!a);
    const entities = await this.accountViews.many(authors);
    const entityOf = new Map(authors.map((a, i) => [a.id, entities[i]]));
    const replies = await this.statuses.replyCounts(list.map((s) => s.id));
    return list.flatMap((s) => {
      const author = byId.get(s.accountId);
      if (!author) return [];
      return [statusEntity(s, {
        uris: this.uris,
        account: entityOf.get(author.id),
        author,
        mentions: s.mentionIds.map((id) => byId.get(id)).filter((a): a is Account => !!a),
        repliesCount: replies.get(s.id) ?? 0,
        own: viewerId === s.accountId,
        withText: opts.withText,
      })];
    });
  }
}
