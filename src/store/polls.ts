// Polls and their votes. A vote is refused (with the reason) when the poll has ended, is the voter's own, was
// already answered by them, or the choices do not fit the poll. A vote counted in a local poll schedules the Update
// that tells other servers the new counts (once per burst: `update_due_at`), and so does its end.
import type { Database, Queryable } from './db.js';
import type { Wake } from '../wake.js';
import { threadNotMuted } from './visibility.js';

export interface Poll {
  readonly id: string;
  readonly statusId: string;
  readonly accountId: string;
  readonly options: readonly string[];
  readonly multiple: boolean;
  readonly hideTotals: boolean;
  readonly expiresAt: Date | null;
  /** Votes per option: counted here for local polls, as published for remote ones (plus our members' votes). */
  readonly counts: readonly number[];
  readonly votersCount: number;
  /** Remote poll: its server's counts are the reference. */
  readonly remote: boolean;
}

export type VoteRefusal = 'expired' | 'own' | 'already_voted' | 'bad_choices';

export interface PollRow {
  [k: string]: unknown;
  id: string;
  status_id: string;
  account_id: string;
  options: string[];
  multiple: boolean;
  hide_totals: boolean;
  expires_at: Date | null;
  remote_counts: number[] | null;
  remote_voters: number | null;
  counts: (number | null)[];
  voters: number;
}

const SELECT = `SELECT p.*,
  ARRAY(SELECT (SELECT count(*)::int FROM poll_votes v WHERE v.poll_id = p.id AND v.choice = i - 1) FROM generate_subscripts(p.options, 1) AS i ORDER BY i) AS counts,
  (SELECT count(DISTINCT account_id)::int FROM poll_votes v WHERE v.poll_id = p.id) AS voters
  FROM polls p`;

export function toPoll(r: PollRow): Poll {
  const local = r.counts.map((n) => n ?? 0);
  const remote = r.remote_counts !== null;
  return {
    id: r.id,
    statusId: r.status_id,
    accountId: r.account_id,
    options: r.options,
    multiple: r.multiple,
    hideTotals: r.hide_totals,
    expiresAt: r.expires_at,
    remote,
    counts: remote ? r.options.map((_, i) => Math.max(r.remote_counts![i] ?? 0, local[i] ?? 0)) : local,
    votersCount: remote ? Math.max(r.remote_voters ?? 0, r.voters) : r.voters,
  };
}

/** A poll as an edit leaves it; `remote` carries the counts a remote poll's server publishes. */
export interface PollSpec {
  readonly options: readonly string[];
  readonly multiple: boolean;
  readonly hideTotals: boolean;
  readonly expiresAt: Date | null;
  readonly remote?: { readonly counts: readonly number[]; readonly voters: number | null };
}

/** The options of a status's poll (what a version of it records), or null without one. */
export async function pollOptions(q: Queryable, statusId: string): Promise<string[] | null> {
  return (await q.query<{ options: string[] }>('SELECT options FROM polls WHERE status_id = $1', [statusId])).rows[0]?.options ?? null;
}

/**
 * An edit of a status's poll (null: the poll goes). As on Mastodon, other options or a switch between one and
 * several choices void the votes cast; otherwise they stay. A poll given a later end is open again. Returns whether
 * readers see a different poll (options, kind, end, totals shown, or a poll added or removed).
 */
export async function editPoll(q: Queryable, statusId: string, accountId: string, spec: PollSpec | null): Promise<boolean> {
  const cur = (
    await q.query<{ id: string; options: string[]; multiple: boolean; hide_totals: boolean; expires_at: Date | null }>(
      'SELECT id, options, multiple, hide_totals, expires_at FROM polls WHERE status_id = $1 FOR UPDATE',
      [statusId],
    )
  ).rows[0];
  if (!spec) {
    if (cur) await q.query('DELETE FROM polls WHERE id = $1', [cur.id]);
    return cur !== undefined;
  }
  if (!cur) {
    await q.query(
      `INSERT INTO polls (status_id, account_id, options, multiple, hide_totals, expires_at, remote_counts, remote_voters, refreshed_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, CASE WHEN $7::integer[] IS NULL THEN NULL ELSE now() END)`,
      [statusId, accountId, spec.options, spec.multiple, spec.hideTotals, spec.expiresAt, spec.remote?.counts ?? null, spec.remote?.voters ?? null],
    );
    return true;
  }
  const reset = cur.options.length !== spec.options.length || cur.options.some((o, i) => o !== spec.options[i]) || cur.multiple !== spec.multiple;
  if (reset) await q.query('DELETE FROM poll_votes WHERE poll_id = $1', [cur.id]);
  await q.query(
    `UPDATE polls SET options = $2, multiple = $3, hide_totals = $4, expires_at = $5,
       closed_at = CASE WHEN $5::timestamptz IS NULL OR $5::timestamptz > now() THEN NULL ELSE closed_at END,
       remote_counts = coalesce($6, remote_counts), remote_voters = CASE WHEN $6::int[] IS NULL THEN remote_voters ELSE $7 END,
       refreshed_at = CASE WHEN $6::int[] IS NULL THEN refreshed_at ELSE now() END
     WHERE id = $1`,
    [cur.id, spec.options, spec.multiple, spec.hideTotals, spec.expiresAt, spec.remote?.counts ?? null, spec.remote?.voters ?? null],
  );
  return reset || cur.hide_totals !== spec.hideTotals || (cur.expires_at?.getTime() ?? null) !== (spec.expiresAt?.getTime() ?? null);
}

export interface PollStoreOptions {
  /** How long after a vote the poll's Update goes out; votes meanwhile ride along (Mastodon waits 3 minutes). */
  readonly updateDelayMs: number;
}

/** A remote poll as its server publishes it (a Question delivered, updated or fetched). */
export interface RemotePollState {
  readonly counts: readonly number[];
  readonly voters: number | null;
  readonly endTime: Date | null;
}

/**
 * A next-due time as the SQL computes it (numeric, as text): null when nothing is waiting, past times as 0. Not
 * clamped in SQL, where greatest(0, NULL) is 0 and an idle closer would go round without pause.
 */
function dueIn(ms: string | null | undefined): number | null {
  return ms == null ? null : Math.max(0, Number(ms));
}

export class PollStore {
  constructor(
    private readonly db: Database,
    private readonly o: PollStoreOptions,
    /** The poll closer, told of new work (a poll created or counted, its end moved); it sleeps until work is due. */
    private readonly due: Wake,
  ) {}

  /** Tells the poll closer a poll has new work. */
  onDue(): void {
    this.due.wake();
  }

  async create(p: {
    statusId: string;
    accountId: string;
    options: readonly string[];
    multiple: boolean;
    hideTotals: boolean;
    expiresAt: Date | null;
    remoteCounts?: number[];
    remoteVoters?: number | null;
  }): Promise<void> {
    await this.db.exec(
      `INSERT INTO polls (status_id, account_id, options, multiple, hide_totals, expires_at, remote_counts, remote_voters, refreshed_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, CASE WHEN $7::integer[] IS NULL THEN NULL ELSE now() END) ON CONFLICT (status_id) DO NOTHING`,
      [p.statusId, p.accountId, p.options, p.multiple, p.hideTotals, p.expiresAt, p.remoteCounts ?? null, p.remoteVoters ?? null],
    );
    this.onDue();
  }

  async byId(id: string): Promise<Poll | undefined> {
    const r = await this.db.one<PollRow>(`${SELECT} WHERE p.id = $1`, [id]);
    return r && toPoll(r);
  }

  async ofStatuses(statusIds: readonly string[]): Promise<Map<string, Poll>> {
    if (statusIds.length === 0) return new Map();
    const rows = await this.db.rows<PollRow>(`${SELECT} WHERE p.status_id = ANY($1::bigint[])`, [statusIds]);
    return new Map(rows.map((r) => [r.status_id, toPoll(r)]));
  }

  /** The choices a member voted for in each poll. */
  async ownVotes(accountId: string, pollIds: readonly string[]): Promise<Map<string, number[]>> {
    if (pollIds.length === 0) return new Map();
    const rows = await this.db.rows<{ poll_id: string; choice: number }>(
      'SELECT poll_id, choice FROM poll_votes WHERE account_id = $1 AND poll_id = ANY($2::bigint[]) ORDER BY choice',
      [accountId, pollIds],
    );
    const out = new Map<string, number[]>();
    for (const r of rows) out.set(r.poll_id, [...(out.get(r.poll_id) ?? []), r.choice]);
    return out;
  }

  /**
   * Records a vote (one row per choice, under a lock on the poll); `uris` are the remote vote activities' ids. In a
   * local poll whose totals are shown, a counted vote schedules its Update unless one is already scheduled (as
   * Mastodon does, a poll hiding its totals tells other servers only at its end).
   */
  async vote(pollId: string, accountId: string, choices: readonly number[], now: Date, uris?: readonly string[]): Promise<VoteRefusal | null> {
    let scheduled = false;
    const refused = await this.db.tx(async (q): Promise<VoteRefusal | null> => {
      const p = (
        await q.query<{ account_id: string; options: string[]; multiple: boolean; expires_at: Date | null }>(
          'SELECT account_id, options, multiple, expires_at FROM polls WHERE id = $1 FOR UPDATE',
          [pollId],
        )
      ).rows[0];
      if (!p) return 'bad_choices';
      if (p.expires_at && p.expires_at <= now) return 'expired';
      if (p.account_id === accountId) return 'own';
      const unique = [...new Set(choices)];
      if (
        unique.length === 0 ||
        unique.length !== choices.length ||
        (!p.multiple && unique.length > 1) ||
        unique.some((c) => !Number.isInteger(c) || c < 0 || c >= p.options.length)
      ) {
        return 'bad_choices';
      }
      const already = await q.query('SELECT 1 FROM poll_votes WHERE poll_id = $1 AND account_id = $2 LIMIT 1', [pollId, accountId]);
      // A remote server sends one activity per choice of a multiple-choice vote: later choices are accepted.
      if (already.rowCount && !(uris && p.multiple)) return 'already_voted';
      let counted = 0;
      for (const [i, c] of unique.entries()) {
        counted +=
          (
            await q.query('INSERT INTO poll_votes (poll_id, account_id, choice, uri) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING', [
              pollId,
              accountId,
              c,
              uris?.[i] ?? null,
            ])
          ).rowCount ?? 0;
      }
      if (counted > 0) {
        scheduled =
          ((
            await q.query(
              `UPDATE polls SET update_due_at = coalesce(update_due_at, now() + $2 * interval '1 millisecond')
           WHERE id = $1 AND remote_counts IS NULL AND NOT hide_totals`,
              [pollId, this.o.updateDelayMs],
            )
          ).rowCount ?? 0) > 0;
      }
      return null;
    });
    if (scheduled) this.onDue();
    return refused;
  }

  /**
   * A remote poll as its server now publishes it (an Update of its Question, or the Question fetched again): its
   * counts, and its end when given (a poll shown closed ends then, and its voters here are told by the closer).
   */
  async setRemote(statusId: string, s: RemotePollState): Promise<void> {
    const r = await this.db.one<{ moved: boolean }>(
      `WITH old AS (SELECT id, expires_at FROM polls WHERE status_id = $1 AND remote_counts IS NOT NULL FOR UPDATE)
       UPDATE polls p SET remote_counts = $2, remote_voters = $3, refreshed_at = now(), expires_at = coalesce($4, old.expires_at)
       FROM old WHERE p.id = old.id RETURNING p.expires_at IS DISTINCT FROM old.expires_at AS moved`,
      [statusId, s.counts, s.voters, s.endTime],
    );
    if (r?.moved) this.onDue();
  }

  /**
   * Claims the refresh of a remote poll whose copy may be stale: read more than `staleMs` ago, and before its end
   * (once read after the end, the final counts are known). True for the one caller (of any node) that should fetch.
   */
  async claimRefresh(pollId: string, staleMs: number): Promise<boolean> {
    return (
      (await this.db.exec(
        `UPDATE polls SET refreshed_at = now() WHERE id = $1 AND remote_counts IS NOT NULL
         AND (refreshed_at IS NULL OR refreshed_at < now() - $2 * interval '1 millisecond')
         AND (refreshed_at IS NULL OR expires_at IS NULL OR refreshed_at < expires_at)`,
        [pollId, staleMs],
      )) > 0
    );
  }

  /** Remote accounts that voted in a poll (their servers hold a copy of it). */
  async remoteVoterIds(pollId: string): Promise<string[]> {
    const rows = await this.db.rows<{ account_id: string }>(
      'SELECT DISTINCT v.account_id FROM poll_votes v JOIN accounts a ON a.id = v.account_id WHERE v.poll_id = $1 AND a.domain IS NOT NULL',
      [pollId],
    );
    return rows.map((r) => r.account_id);
  }

  /**
   * Sends the due Updates of up to `limit` local polls. Each is claimed first (due time cleared, a lease set; SKIP
   * LOCKED lets several nodes share the work) and the lease is dropped once `send` has queued the Update, so no row
   * lock is held while sending: a vote counted meanwhile schedules the next Update, and a node that dies mid-send
   * leaves its lease to the others, who send it again (at least once) as soon as they see the node gone, or when the
   * lease ends. A poll whose `send` throws is reported and retried when its lease ends, without holding up the
   * others. Returns how many were sent and the milliseconds until the next is due (null: none).
   */
  async sendDueUpdates(
    limit: number,
    lease: { readonly ms: number; readonly owner: string },
    send: (p: { id: string; statusId: string }) => Promise<void>,
    onFailed: (pollId: string, e: unknown) => void,
  ): Promise<{ sent: number; nextInMs: number | null }> {
    const claimed = await this.db.rows<{ id: string; status_id: string; lease: string }>(
      `WITH due AS (
         SELECT id FROM polls WHERE update_due_at <= now() OR update_lease_until <= now()
         ORDER BY least(update_due_at, update_lease_until) LIMIT $1 FOR UPDATE SKIP LOCKED
       )
       UPDATE polls p SET update_due_at = NULL, update_lease_until = now() + $2 * interval '1 millisecond', update_lease_owner = $3
       FROM due WHERE p.id = due.id RETURNING p.id, p.status_id, p.update_lease_until::text AS lease`,
      [limit, lease.ms, lease.owner],
    );
    let sent = 0;
    for (const c of claimed) {
      try {
        await send({ id: c.id, statusId: c.status_id });
      } catch (e) {
        onFailed(c.id, e);
        continue;
      }
      // Unless the lease ran out and another node holds the poll now.
      await this.db.exec('UPDATE polls SET update_lease_until = NULL, update_lease_owner = NULL WHERE id = $1 AND update_lease_until = $2::timestamptz', [
        c.id,
        c.lease,
      ]);
      sent++;
    }
    const r = await this.db.one<{ next_in_ms: string | null }>(
      `SELECT ceil(extract(epoch FROM least(
         (SELECT min(update_due_at) FROM polls WHERE update_due_at IS NOT NULL),
         (SELECT min(update_lease_until) FROM polls WHERE update_lease_until IS NOT NULL)) - now()) * 1000) AS next_in_ms`,
    );
    return { sent, nextInMs: dueIn(r?.next_in_ms) };
  }

  /**
   * Announces the end of up to `limit` polls past their end: a `poll` notification for their author (if a member)
   * and for each member who voted, once (SKIP LOCKED lets several nodes share the work); a local poll's final
   * Update is due at once. Returns how many closed, and the milliseconds until the next open poll ends (null: none).
   */
  async closeDue(limit: number): Promise<{ closed: number; nextInMs: number | null }> {
    const r = await this.db.one<{ closed: string; next_in_ms: string | null }>(
      `WITH due AS (
         SELECT id FROM polls WHERE closed_at IS NULL AND expires_at <= now() ORDER BY expires_at LIMIT $1 FOR UPDATE SKIP LOCKED
       ), closed AS (
         UPDATE polls p SET closed_at = now(), update_due_at = CASE WHEN p.remote_counts IS NULL THEN now() ELSE p.update_due_at END
         FROM due WHERE p.id = due.id RETURNING p.id, p.status_id, p.account_id, thread_root(p.status_id) AS root
       ), told AS (
         INSERT INTO notifications (account_id, from_account_id, type, status_id)
         SELECT who.account_id, c.account_id, 'poll', c.status_id
         FROM closed c CROSS JOIN LATERAL (SELECT v.account_id FROM poll_votes v WHERE v.poll_id = c.id UNION SELECT c.account_id) who
         WHERE EXISTS (SELECT 1 FROM users u WHERE u.account_id = who.account_id) AND ${threadNotMuted('who.account_id', 'c.root')}
         ON CONFLICT DO NOTHING RETURNING 1
       )
       SELECT (SELECT count(*) FROM closed) AS closed, (SELECT count(*) FROM told) AS told,
         (SELECT ceil(extract(epoch FROM min(expires_at) - now()) * 1000) FROM polls
          WHERE closed_at IS NULL AND expires_at IS NOT NULL AND id NOT IN (SELECT id FROM closed)) AS next_in_ms`,
      [limit],
    );
    return { closed: Number(r!.closed), nextInMs: dueIn(r!.next_in_ms) };
  }
}
