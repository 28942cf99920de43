// GET /api/v1/instance, GET /api/v2/instance, GET /health. The instance documents are read by every client at
// start-up and are hot: they are serialised once and served from memory as long as the counts they show are fresh
// (CachedInstanceCounts, shared with NodeInfo: dropped on user changes, re-read after INSTANCE_STATS_MAX_AGE_MS).
import type { Config } from '../../config/schema.js';
import { accountEntity } from '../entities/account.js';
import { instanceV1, instanceV2 } from '../entities/instance.js';
import type { RuleEntity } from '../entities/instance-extras.js';
import { json, jsonText } from '../http/respond.js';
import { PUBLIC, type Route } from '../http/types.js';
import type { Database } from '../store/db.js';
import type { CachedInstanceCounts, InstanceCounts } from '../store/instance-stats.js';

export class InstanceDocuments {
  /** The documents, with the counts they were rendered from: fresh exactly as long as those counts are. */
  private cached: { v1: string; v2: string; from: InstanceCounts } | null = null;

  constructor(
    private readonly counts: CachedInstanceCounts,
    private readonly config: Config,
    /** The VAPID public key (Web Push), v2's configuration.vapid.public_key. */
    private readonly vapidKey: string,
    /** The server's rules, read with the counts (an edit calls invalidate(); other nodes see it within the counts' age). */
    private readonly rules: () => Promise<readonly RuleEntity[]>,
  ) {}

  /** Called when anything the documents show changes (users approved, the owner's profile…). */
  invalidate(): void {
    this.counts.invalidate();
  }

  /** The cached documents when fresh, without a promise: the common case stays synchronous. */
  peek(): { v1: string; v2: string } | null {
    const c = this.cached;
    return c && c.from === this.counts.peek() ? c : null;
  }

  async get(): Promise<{ v1: string; v2: string }> {
    const c = this.peek();
    if (c) return c;
    const [counts, rules] = await Promise.all([this.counts.get(), this.rules()]);
    const facts = {
      userCount: counts.userCount,
      statusCount: counts.localPosts,
      domainCount: counts.domainCount,
      activeMonth: counts.activeMonth,
      contactAccount: counts.owner ? accountEntity(counts.owner, this.config) : null,
      vapidKey: this.vapidKey,
      rules,
    };
    const docs = { v1: JSON.stringify(instanceV1(this.config, facts)), v2: JSON.stringify(instanceV2(this.config, facts)), from: counts };
    this.cached = docs;
    return docs;
  }
}

export function instanceRoutes(docs: InstanceDocuments, db: Database): Route[] {
  return [
    {
      method: 'GET',
      path: '/api/v1/instance',
      auth: PUBLIC,
      handler: () => {
        const c = docs.peek();
        return c ? jsonText(200, c.v1) : docs.get().then((d) => jsonText(200, d.v1));
      },
    },
    {
      method: 'GET',
      path: '/api/v2/instance',
      auth: PUBLIC,
      handler: () => {
        const c = docs.peek();
        return c ? jsonText(200, c.v2) : docs.get().then((d) => jsonText(200, d.v2));
      },
    },
    {
      method: 'GET',
      path: '/health',
      auth: PUBLIC,
      handler: async () =>
        (await db.ping())
          ? json(200, { status: 'ok', database: 'ok' })
          : json(503, { error: 'Database unavailable', status: 'degraded' }, { 'Retry-After': '5' }),
    },
  ];
}
