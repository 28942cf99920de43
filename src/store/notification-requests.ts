// A member's notification policy and the requests gathering filtered notifications per sender (migration 051: the
// policy itself is applied by a trigger as each notification is inserted). Accepting a request lets its sender's
// notifications through, now and later, and tells the member's streams `notifications_merged` from the same
// transaction, so every node hears it only once the merge is committed (Mastodon's UnfilterNotificationsWorker).
import { STREAM_CHANNEL } from './auth-events.js';
import type { Database } from './db.js';
import { pageSql, type PageQuery } from './paging.js';
import { silencedBy } from './visibility.js';

export const POLICY_VALUES = ['accept', 'filter', 'drop'] as const;
export type PolicyValue = (typeof POLICY_VALUES)[number];

export interface NotificationPolicy {
  readonly forNotFollowing: PolicyValue;
  readonly forNotFollowers: PolicyValue;
  readonly forNewAccounts: PolicyValue;
  readonly forPrivateMentions: PolicyValue;
  readonly forLimitedAccounts: PolicyValue;
  readonly pendingRequestsCount: number;
  readonly pendingNotificationsCount: number;
}

export type PolicyChange = Partial<Omit<NotificationPolicy, 'pendingRequestsCount' | 'pendingNotificationsCount'>>;

export interface NotificationRequest {
  readonly id: string;
  readonly fromAccountId: string;
  readonly lastStatusId: string | null;
  readonly notificationsCount: number;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

const COLUMNS: Record<keyof PolicyChange, string> = {
  forNotFollowing: 'for_not_following',
  forNotFollowers: 'for_not_followers',
  forNewAccounts: 'for_new_accounts',
  forPrivateMentions: 'for_private_mentions',
  forLimitedAccounts: 'for_limited_accounts',
};

// A request is shown while its sender's account exists and is not suspended (Mastodon's without_suspended), nor
// blocked, muted for notifications or on a domain the member blocks (as its notifications are not: notifications.ts).
const SHOWN = `r.account_id = $1 AND EXISTS (SELECT 1 FROM accounts fa WHERE fa.id = r.from_account_id AND fa.deleted_at IS NULL AND fa.suspended_at IS NULL)
  AND NOT (r.from_account_id IN ${silencedBy('$1', 'notifications')})`;

interface RequestRow {
  [k: string]: unknown;
  id: string;
  from_account_id: string;
  last_status_id: string | null;
  notifications_count: number;
  created_at: Date;
  updated_at: Date;
}

const toRequest = (r: RequestRow): NotificationRequest => ({
  id: r.id,
  fromAccountId: r.from_account_id,
  lastStatusId: r.last_status_id,
  notificationsCount: r.notifications_count,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export class NotificationRequestStore {
  constructor(private readonly db: Database) {}

  /** The member's policy (Mastodon's defaults until they change it) with the count of what waits. */
  async policy(accountId: string): Promise<NotificationPolicy> {
    const r = await this.db.one<Record<string, unknown>>(
      `SELECT coalesce(p.for_not_following, 'accept') AS "forNotFollowing", coalesce(p.for_not_followers, 'accept') AS "forNotFollowers",
         coalesce(p.for_new_accounts, 'accept') AS "forNewAccounts", coalesce(p.for_private_mentions, 'filter') AS "forPrivateMentions",
         coalesce(p.for_limited_accounts, 'filter') AS "forLimitedAccounts",
         (SELECT count(*)::int FROM notification_requests r WHERE ${SHOWN}) AS "pendingRequestsCount",
         (SELECT coalesce(sum(r.notifications_count), 0)::int FROM notification_requests r WHERE ${SHOWN}) AS "pendingNotificationsCount"
       FROM (SELECT 1) one LEFT JOIN notification_policies p ON p.account_id = $1`,
      [accountId],
    );
    return r as unknown as NotificationPolicy;
  }

  async updatePolicy(accountId: string, change: PolicyChange): Promise<NotificationPolicy> {
    const set = Object.entries(change).filter(([, v]) => v !== undefined) as [keyof PolicyChange, PolicyValue][];
    if (set.length > 0) {
      const values: unknown[] = [accountId];
      const cols = set.map(([k, v]) => [COLUMNS[k], `$${values.push(v)}`] as const);
      await this.db.exec(
        `INSERT INTO notification_policies (account_id, ${cols.map((c) => c[0]).join(', ')}) VALUES ($1, ${cols.map((c) => c[1]).join(', ')})
         ON CONFLICT (account_id) DO UPDATE SET ${cols.map(([c]) => `${c} = EXCLUDED.${c}`).join(', ')}, updated_at = now()`,
        values,
      );
    }
    return this.policy(accountId);
  }

  async list(accountId: string, page: PageQuery): Promise<NotificationRequest[]> {
    const values: unknown[] = [accountId];
    const p = pageSql(page, 'r.id', values);
    return p.newestFirst(
      (await this.db.rows<RequestRow>(`SELECT r.* FROM notification_requests r WHERE ${SHOWN}${p.where}${p.orderLimit}`, values)).map(toRequest),
    );
  }

  async one(accountId: string, id: string): Promise<NotificationRequest | undefined> {
    const r = await this.db.one<RequestRow>(`SELECT r.* FROM notification_requests r WHERE ${SHOWN} AND r.id = $2`, [accountId, id]);
    return r && toRequest(r);
  }

  /**
   * Accepts the member's requests `ids` (those that are theirs): their senders are let through from now on, their
   * filtered notifications join the member's list, and the member's streams are told once it is committed.
   * Returns how many requests were accepted.
   */
  async accept(accountId: string, ids: readonly string[]): Promise<number> {
    const r = await this.db.one<{ n: number }>(
      `WITH gone AS (DELETE FROM notification_requests WHERE account_id = $1 AND id = ANY($2::bigint[]) RETURNING from_account_id),
       allowed AS (INSERT INTO notification_permissions (account_id, from_account_id) SELECT $1, from_account_id FROM gone ON CONFLICT DO NOTHING),
       merged AS (UPDATE notifications SET filtered = false WHERE account_id = $1 AND filtered AND from_account_id IN (SELECT from_account_id FROM gone))
       SELECT count(*)::int AS n, CASE WHEN count(*) > 0 THEN pg_notify('${STREAM_CHANNEL}', json_build_object('event', 'notifications_merged', 'account', $1::text)::text) END
       FROM gone`,
      [accountId, ids],
    );
    return r?.n ?? 0;
  }

  /** Dismisses the member's requests `ids`: they and the notifications they held are gone. Returns how many. */
  async dismiss(accountId: string, ids: readonly string[]): Promise<number> {
    const r = await this.db.one<{ n: number }>(
      `WITH gone AS (DELETE FROM notification_requests WHERE account_id = $1 AND id = ANY($2::bigint[]) RETURNING from_account_id),
       dropped AS (DELETE FROM notifications WHERE account_id = $1 AND filtered AND from_account_id IN (SELECT from_account_id FROM gone))
       SELECT count(*)::int AS n FROM gone`,
      [accountId, ids],
    );
    return r?.n ?? 0;
  }
}
