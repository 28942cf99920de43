// The leases of nodes that are gone. Every kind of leased work names its owner (the node's listener name, see
// auth-events.ts): inbox jobs, deliveries, Web Push deliveries, remote history jobs, poll Updates and the hourly
// history sweep, link card jobs, home-feed fan-out jobs. One statement gives back everything held by owners not among
// the live nodes, and notifies the work it freed on WORK_CHANNEL, so every node's sleeping actors wake for it as for newly queued work.
import { WORK_CHANNEL } from './auth-events.js';
import type { Database } from './db.js';

/** How many rows of each kind were given back (absent: none). */
export type Released = Partial<Record<'inbox' | 'delivery' | 'push' | 'history' | 'polls' | 'sweep' | 'cards' | 'homefeed', number>>;

export class LeaseStore {
  constructor(private readonly db: Database) {}

  async releaseExcept(liveOwners: readonly string[]): Promise<Released> {
    // A lease already run out is left alone: claims take it anyway. Owners unknown (NULL, rows leased before
    // migration 047) are never taken for dead: `NOT (NULL = ANY …)` is not true.
    const dead = (owner: string) => `NOT (${owner} = ANY($1::text[]))`;
    const rows = await this.db.rows<{ kind: keyof Released; n: number }>(
      `WITH inbox AS (
         UPDATE inbox_jobs SET lease_until = NULL, lease_owner = NULL
         WHERE processed_at IS NULL AND lease_until > now() AND ${dead('lease_owner')} RETURNING 'inbox'::text AS work
       ), delivery AS (
         UPDATE deliveries SET lease_until = NULL, lease_owner = NULL
         WHERE lease_until > now() AND ${dead('lease_owner')} RETURNING 'delivery:' || host AS work
       ), push AS (
         UPDATE push_deliveries SET lease_until = NULL, lease_owner = NULL
         WHERE lease_until > now() AND ${dead('lease_owner')} RETURNING 'push:' || host AS work
       ), history AS (
         UPDATE remote_histories SET state = 'queued', lease_owner = NULL, lease_until = NULL
         WHERE state = 'fetching' AND lease_until > now() AND ${dead('lease_owner')} RETURNING 'history:' || origin AS work
       ), polls AS (
         -- An Update whose lease ends now is due again (sendDueUpdates claims those).
         UPDATE polls SET update_lease_until = now(), update_lease_owner = NULL
         WHERE update_lease_until > now() AND ${dead('update_lease_owner')} RETURNING 'polls'::text AS work
       ), sweep AS (
         UPDATE history_sweep SET next_at = '-infinity', owner = NULL WHERE ${dead('owner')} RETURNING 'sweep'::text AS work
       ), cards AS (
         UPDATE card_jobs SET lease_until = NULL, lease_owner = NULL
         WHERE lease_until > now() AND ${dead('lease_owner')} RETURNING 'cards'::text AS work
       ), homefeed AS (
         UPDATE home_feed_jobs SET lease_until = NULL, lease_owner = NULL
         WHERE lease_until > now() AND ${dead('lease_owner')} RETURNING 'homefeed'::text AS work
       ), freed AS (
         SELECT work FROM inbox UNION ALL SELECT work FROM delivery UNION ALL SELECT work FROM push
         UNION ALL SELECT work FROM history UNION ALL SELECT work FROM polls UNION ALL SELECT work FROM sweep
         UNION ALL SELECT work FROM cards UNION ALL SELECT work FROM homefeed
       ), told AS (
         SELECT pg_notify('${WORK_CHANNEL}', w.work) FROM (SELECT DISTINCT work FROM freed WHERE work NOT IN ('polls', 'sweep')) w
       )
       SELECT split_part(work, ':', 1) AS kind, count(*)::int AS n, (SELECT count(*) FROM told) AS told FROM freed GROUP BY 1`,
      [liveOwners],
    );
    return Object.fromEntries(rows.map((r) => [r.kind, r.n]));
  }
}
