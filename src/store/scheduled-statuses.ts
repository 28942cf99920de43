// Scheduled posts (Mastodon's ScheduledStatus): a member's post kept with its parameters until `scheduled_at`, its
// uploads reserved for it. Mastodon's limits are checked under a per-member lock so two requests at once cannot both
// pass them. Publishing claims a due row with FOR UPDATE SKIP LOCKED and deletes it in the transaction that creates
// the status: the row lock is the claim, so a node that dies mid-way rolls everything back and another node takes the
// row again; a committed publication has no row left to take. Exactly once, without a lease to expire.
import type { Database } from './db.js';
import { pageSql, type PageQuery } from './paging.js';
import { mixesVideo, toMedia, type Media, type MediaRow, type MediaType } from './media.js';
import type { QuotePolicy } from './status-rows.js';

/** Mastodon's ScheduledStatus::TOTAL_LIMIT and DAILY_LIMIT. */
export const SCHEDULED_TOTAL_LIMIT = 300;
export const SCHEDULED_DAILY_LIMIT = 25;

/** The post as Mastodon keeps it in `params` (what PostStatusService is called with at the scheduled time). */
export interface ScheduledParams {
  readonly text: string;
  readonly visibility: string;
  readonly sensitive: boolean;
  readonly spoiler_text: string;
  readonly language: string | null;
  readonly in_reply_to_id: string | null;
  readonly quoted_status_id: string | null;
  readonly media_ids: readonly string[] | null;
  readonly poll: { readonly options: readonly string[]; readonly expires_in: number; readonly multiple: boolean; readonly hide_totals: boolean } | null;
  readonly idempotency: null;
  readonly scheduled_at: null;
  readonly application_id: string | null;
  readonly with_rate_limit: false;
  /** Mastodon 4.5 keeps it among the params too; absent in posts scheduled before it was kept. */
  readonly quote_approval_policy?: QuotePolicy;
}

export interface ScheduledStatus {
  readonly id: string;
  readonly accountId: string;
  readonly scheduledAt: Date;
  readonly params: ScheduledParams;
}

interface Row {
  [k: string]: unknown;
  id: string;
  account_id: string;
  scheduled_at: Date;
  params: ScheduledParams;
}

const toScheduled = (r: Row): ScheduledStatus => ({ id: r.id, accountId: r.account_id, scheduledAt: r.scheduled_at, params: r.params });

/** Why a schedule or a move was refused: Mastodon's limits, or uploads that are not the member's free ones. */
export type ScheduleRefusal = 'total' | 'daily' | 'media' | 'media_mixed' | 'media_unready';

class Refused extends Error {
  constructor(readonly why: ScheduleRefusal) {
    super(why);
  }
}

export class ScheduledStatusStore {
  constructor(private readonly db: Database) {}

  /**
   * Schedules a post, reserving its uploads. With an idempotency key already used for a scheduled post of the
   * member, that one is returned instead (`created` false).
   */
  async create(
    accountId: string,
    scheduledAt: Date,
    params: ScheduledParams,
    idempotencyKey: string | undefined,
  ): Promise<{ scheduled: ScheduledStatus; created: boolean } | { refused: ScheduleRefusal }> {
    try {
      return await this.db.tx(async (q) => {
        await this.lockMember(accountId);
        if (idempotencyKey !== undefined) {
          const seen = (await q.query<Row>('SELECT * FROM scheduled_statuses WHERE account_id = $1 AND idempotency_key = $2', [accountId, idempotencyKey]))
            .rows[0];
          if (seen) return { scheduled: toScheduled(seen), created: false };
        }
        await this.checkLimits(accountId, scheduledAt, null);
        const row = (
          await q.query<Row>('INSERT INTO scheduled_statuses (account_id, scheduled_at, params, idempotency_key) VALUES ($1, $2, $3, $4) RETURNING *', [
            accountId,
            scheduledAt,
            JSON.stringify(params),
            idempotencyKey ?? null,
          ])
        ).rows[0]!;
        const ids = params.media_ids ?? [];
        if (ids.length) {
          // Free uploads of the member only: neither on a post nor reserved by another scheduled one.
          const taken = await q.query<{ type: MediaType; processing: string }>(
            `UPDATE media_attachments m SET scheduled_status_id = $1, position = t.n FROM unnest($3::bigint[]) WITH ORDINALITY AS t(id, n)
             WHERE m.id = t.id AND m.account_id = $2 AND m.status_id IS NULL AND m.scheduled_status_id IS NULL RETURNING m.type, m.processing`,
            [row.id, accountId, ids],
          );
          if (taken.rows.length !== ids.length) throw new Refused('media');
          if (mixesVideo(taken.rows.map((r) => r.type))) throw new Refused('media_mixed');
          if (taken.rows.some((r) => r.processing !== 'done')) throw new Refused('media_unready');
        }
        return { scheduled: toScheduled(row), created: true };
      });
    } catch (e) {
      if (e instanceof Refused) return { refused: e.why };
      throw e;
    }
  }

  async byId(accountId: string, id: string): Promise<ScheduledStatus | undefined> {
    const r = await this.db.one<Row>('SELECT * FROM scheduled_statuses WHERE id = $1 AND account_id = $2', [id, accountId]);
    return r && toScheduled(r);
  }

  async byIdempotencyKey(accountId: string, key: string): Promise<ScheduledStatus | undefined> {
    const r = await this.db.one<Row>('SELECT * FROM scheduled_statuses WHERE account_id = $1 AND idempotency_key = $2', [accountId, key]);
    return r && toScheduled(r);
  }

  /** The member's scheduled posts by id, newest first (Mastodon's to_a_paginated_by_id). */
  async page(accountId: string, page: PageQuery): Promise<ScheduledStatus[]> {
    const values: unknown[] = [accountId];
    const p = pageSql(page, 'id', values);
    return p.newestFirst(await this.db.rows<Row>(`SELECT * FROM scheduled_statuses WHERE account_id = $1${p.where}${p.orderLimit}`, values)).map(toScheduled);
  }

  /** The uploads reserved for these scheduled posts, in order. */
  async media(ids: readonly string[]): Promise<Map<string, Media[]>> {
    const out = new Map<string, Media[]>();
    if (ids.length === 0) return out;
    const rows = await this.db.rows<MediaRow & { scheduled_status_id: string }>(
      'SELECT * FROM media_attachments WHERE scheduled_status_id = ANY($1::bigint[]) ORDER BY scheduled_status_id, position, id',
      [ids],
    );
    for (const r of rows) {
      const list = out.get(r.scheduled_status_id) ?? [];
      list.push(toMedia(r));
      out.set(r.scheduled_status_id, list);
    }
    return out;
  }

  /** Moves a scheduled post (PUT: scheduled_at only), under the same limits; undefined when it is not the member's. */
  async reschedule(accountId: string, id: string, at: Date): Promise<ScheduledStatus | undefined | { refused: ScheduleRefusal }> {
    try {
      return await this.db.tx(async (q) => {
        await this.lockMember(accountId);
        if (!(await q.query('SELECT 1 FROM scheduled_statuses WHERE id = $1 AND account_id = $2', [id, accountId])).rowCount) return undefined;
        await this.checkLimits(accountId, at, id);
        const r = await q.query<Row>('UPDATE scheduled_statuses SET scheduled_at = $3 WHERE id = $1 AND account_id = $2 RETURNING *', [id, accountId, at]);
        return r.rows[0] && toScheduled(r.rows[0]);
      });
    } catch (e) {
      if (e instanceof Refused) return { refused: e.why };
      throw e;
    }
  }

  /** Cancels a scheduled post; its uploads are free again (ON DELETE SET NULL). */
  async remove(accountId: string, id: string): Promise<boolean> {
    return (await this.db.exec('DELETE FROM scheduled_statuses WHERE id = $1 AND account_id = $2', [id, accountId])) > 0;
  }

  /**
   * Inside the caller's transaction: takes the earliest due post no other transaction holds, and deletes it (its
   * uploads freed for the status about to be made of it). The row stays locked until the caller commits or rolls
   * back; undefined when nothing is due and free.
   */
  async claimDue(): Promise<ScheduledStatus | undefined> {
    return this.db.tx(async (q) => {
      const r = await q.query<Row>('SELECT * FROM scheduled_statuses WHERE scheduled_at <= now() ORDER BY scheduled_at, id LIMIT 1 FOR UPDATE SKIP LOCKED');
      const row = r.rows[0];
      if (!row) return undefined;
      await q.query('DELETE FROM scheduled_statuses WHERE id = $1', [row.id]);
      return toScheduled(row);
    });
  }

  /** Moves a scheduled post `ms` from now (its publication failed; it is tried again then). */
  async postpone(id: string, ms: number): Promise<void> {
    await this.db.exec('UPDATE scheduled_statuses SET scheduled_at = now() + make_interval(secs => $2::float8 / 1000) WHERE id = $1', [id, ms]);
  }

  /** Milliseconds until the earliest scheduled post is due (0 or less: due now), null when none is scheduled. */
  async nextDueInMs(): Promise<number | null> {
    const r = await this.db.one<{ ms: number | null }>('SELECT (extract(epoch FROM min(scheduled_at) - now()) * 1000)::float8 AS ms FROM scheduled_statuses');
    return r?.ms ?? null;
  }

  private async lockMember(accountId: string): Promise<void> {
    await this.db.exec('SELECT pg_advisory_xact_lock(hashtext($1))', [`scheduled:${accountId}`]);
  }

  /** Mastodon's validate_total_limit and validate_daily_limit (the day of scheduled_at, in UTC); `except`: the one moved. */
  private async checkLimits(accountId: string, at: Date, except: string | null): Promise<void> {
    const r = await this.db.one<{ total: number; daily: number }>(
      `SELECT count(*)::int AS total,
         (count(*) FILTER (WHERE (scheduled_at AT TIME ZONE 'UTC')::date = ($2::timestamptz AT TIME ZONE 'UTC')::date))::int AS daily
       FROM scheduled_statuses WHERE account_id = $1 AND id IS DISTINCT FROM $3`,
      [accountId, at, except],
    );
    if ((r?.total ?? 0) >= SCHEDULED_TOTAL_LIMIT) throw new Refused('total');
    if ((r?.daily ?? 0) >= SCHEDULED_DAILY_LIMIT) throw new Refused('daily');
  }
}
