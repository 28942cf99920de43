// Counts shown in the instance entities and NodeInfo, and a short-lived cache of them for the documents served often.
import type { Account } from './accounts.js';
import type { Database } from './db.js';

/** The Owner's public profile fields, enough for the instance entities' contact account. */
export type InstanceOwner = Pick<Account, 'id' | 'username' | 'displayName' | 'note' | 'locked' | 'bot' | 'discoverable' | 'createdAt'>;

export interface InstanceCounts {
  readonly userCount: number;
  readonly activeMonth: number;
  readonly activeHalfyear: number;
  /** Local statuses not deleted, boosts included and direct ones not, as accounts' statuses_count counts them. */
  readonly localPosts: number;
  /** Other servers we know an account of. */
  readonly domainCount: number;
  readonly owner: InstanceOwner | null;
}

export async function instanceCounts(db: Database): Promise<InstanceCounts> {
  const counts = await db.one<{ users: string; active: string; half: string; posts: string; domains: string }>(
    `SELECT count(*) FILTER (WHERE approved AND NOT disabled) AS users,
            count(*) FILTER (WHERE approved AND NOT disabled AND last_sign_in_at > now() - interval '30 days') AS active,
            count(*) FILTER (WHERE approved AND NOT disabled AND last_sign_in_at > now() - interval '180 days') AS half,
            (SELECT count(*) FROM statuses WHERE local AND deleted_at IS NULL AND visibility <> 3) AS posts,
            (SELECT count(DISTINCT lower(domain)) FROM accounts WHERE domain IS NOT NULL) AS domains
       FROM users`,
  );
  const owner = await db.one<{
    id: string;
    username: string;
    display_name: string;
    note: string;
    locked: boolean;
    bot: boolean;
    discoverable: boolean | null;
    created_at: Date;
  }>(
    `SELECT a.id, a.username, a.display_name, a.note, a.locked, a.bot, a.discoverable, a.created_at
       FROM users u JOIN accounts a ON a.id = u.account_id
      WHERE u.role_id = 3 AND NOT u.disabled ORDER BY u.id LIMIT 1`,
  );
  return {
    userCount: Number(counts?.users ?? 0),
    activeMonth: Number(counts?.active ?? 0),
    activeHalfyear: Number(counts?.half ?? 0),
    localPosts: Number(counts?.posts ?? 0),
    domainCount: Number(counts?.domains ?? 0),
    owner: owner
      ? {
          id: owner.id,
          username: owner.username,
          displayName: owner.display_name,
          note: owner.note,
          locked: owner.locked,
          bot: owner.bot,
          discoverable: owner.discoverable,
          createdAt: owner.created_at,
        }
      : null,
  };
}

/**
 * The counts, one cache for the instance documents and NodeInfo: read at most once per maxAgeMs (0: on every call)
 * and by one query at a time, since counting statuses and domains scans tables and NodeInfo is fetched by every
 * crawler and peer. invalidate() drops them when a member is approved or changes.
 */
export class CachedInstanceCounts {
  private cached: { counts: InstanceCounts; at: number } | null = null;
  private pending: Promise<InstanceCounts> | null = null;
  private generation = 0;

  constructor(
    private readonly db: Database,
    private readonly maxAgeMs: number,
  ) {}

  invalidate(): void {
    this.cached = null;
    this.pending = null; // a count already under way read the old state: the next get() starts afresh
    this.generation++;
  }

  /** The counts when fresh, without a promise. */
  peek(): InstanceCounts | null {
    const c = this.cached;
    return c && Date.now() - c.at < this.maxAgeMs ? c.counts : null;
  }

  get(): Promise<InstanceCounts> {
    const fresh = this.peek();
    return fresh ? Promise.resolve(fresh) : (this.pending ??= this.read());
  }

  private async read(): Promise<InstanceCounts> {
    const generation = this.generation;
    try {
      const counts = await instanceCounts(this.db);
      // Invalidated while we were reading: answer with what we read, but keep none of it.
      if (generation === this.generation) this.cached = { counts, at: Date.now() };
      return counts;
    } finally {
      if (generation === this.generation) this.pending = null;
    }
  }
}
