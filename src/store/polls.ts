// Polls and their votes. A vote is refused (with the reason) when the poll has ended, is the voter's own, was
// already answered by them, or the choices do not fit the poll.
import type { Database, Queryable } from './db.js';

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

interface Row {
  [k: string]: unknown;
  id: string; status_id: string; account_id: string; options: string[]; multiple: boolean; hide_totals: boolean; expires_at: Date | null;
  remote_counts: number[] | null; remote_voters: number | null; counts: (number | null)[]; voters: number;
}

const SELECT = `SELECT p.*,
  ARRAY(SELECT (SELECT count(*)::int FROM poll_votes v WHERE v.poll_id = p.id AND v.choice = i - 1) FROM generate_subscripts(p.options, 1) AS i ORDER BY i) AS counts,
  (SELECT count(DISTINCT account_id)::int FROM poll_votes v WHERE v.poll_id = p.id) AS voters
  FROM polls p`;

function toPoll(r: Row): Poll {
  const local = r.counts.map((n) => n ?? 0);
  const remote = r.remote_counts !== null;
  return {
    id: r.id, statusId: r.status_id, accountId: r.account_id, options: r.options, multiple: r.multiple, hideTotals: r.hide_totals,
    expiresAt: r.expires_at, remote,
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
  const cur = (await q.query<{ id: string; options: string[]; multiple: boolean; hide_totals: boolean; expires_at: Date | null }>(
    'SELECT id, options, multiple, hide_totals, expires_at FROM polls WHERE status_id = $1 FOR UPDATE', [statusId])).rows[0];
  if (!spec) {
    if (cur) await q.query('DELETE FROM polls WHERE id = $1', [cur.id]);
    return cur !== undefined;
  }
  if (!cur) {
    await q.query(
      'INSERT INTO polls (status_id, account_id, options, multiple, hide_totals, expires_at, remote_counts, remote_voters) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
      [statusId, accountId, spec.options, spec.multiple, spec.hideTotals, spec.expiresAt, spec.remote?.counts ?? null, spec.remote?.voters ?? null],
    );
    return true;
  }
  const reset = cur.options.length !== spec.options.length || cur.options.some((o, i) => o !== spec.options[i]) || cur.multiple !== spec.multiple;
  if (reset) await q.query('DELETE FROM poll_votes WHERE poll_id = $1', [cur.id]);
  await q.query(
    `UPDATE polls SET options = $2, multiple = $3, hide_totals = $4, expires_at = $5,
       closed_at = CASE WHEN $5::timestamptz IS NULL OR $5::timestamptz > now() THEN NULL ELSE closed_at END,
       remote_counts = coalesce($6, remote_counts), remote_voters = CASE WHEN $6::int[] IS NULL THEN remote_voters ELSE $7 END
     WHERE id = $1`,
    [cur.id, spec.options, spec.multiple, spec.hideTotals, spec.expiresAt, spec.remote?.counts ?? null, spec.remote?.voters ?? null],
  );
  return reset || cur.hide_totals !== spec.hideTotals || (cur.expires_at?.getTime() ?? null) !== (spec.expiresAt?.getTime() ?? null);
}

export class PollStore {
  /** Told of each new poll (the poll closer sleeps until the next end it knows of). */
  onCreated: () => void = () => {};

  constructor(private readonly db: Database) {}

  async create(p: { statusId: string; accountId: string; options: readonly string[]; multiple: boolean; hideTotals: boolean; expiresAt: Date | null; remoteCounts?: number[]; remoteVoters?: number | null }): Promise<void> {
    await this.db.exec(
      `INSERT INTO polls (status_id, account_id, options, multiple, hide_totals, expires_at, remote_counts, remote_voters)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (status_id) DO NOTHING`,
      [p.statusId, p.accountId, p.options, p.multiple, p.hideTotals, p.expiresAt, p.remoteCounts ?? null, p.remoteVoters ?? null],
    );
    this.onCreated();
  }

  async byId(id: string): Promise<Poll | undefined> {
    const r = await this.db.one<Row>(`${SELECT} WHERE p.id = $1`, [id]);
    return r && toPoll(r);
  }

  async ofStatuses(statusIds: readonly string[]): Promise<Map<string, Poll>> {
    if (statusIds.length === 0) return new Map();
    const rows = await this.db.rows<Row>(`${SELECT} WHERE p.status_id = ANY($1::bigint[])`, [statusIds]);
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

  /** Records a vote (one row per choice, under a lock on the poll); `uris` are the remote vote activities' ids. */
  async vote(pollId: string, accountId: string, choices: readonly number[], now: Date, uris?: readonly string[]): Promise<VoteRefusal | null> {
    return this.db.tx(async (q) => {
      const p = (await q.query<{ account_id: string; options: string[]; multiple: boolean; expires_at: Date | null }>(
        'SELECT account_id, options, multiple, expires_at FROM polls WHERE id = $1 FOR UPDATE', [pollId])).rows[0];
      if (!p) return 'bad_choices';
      if (p.expires_at && p.expires_at <= now) return 'expired';
      if (p.account_id === accountId) return 'own';
      const unique = [...new Set(choices)];
      if (unique.length === 0 || unique.length !== choices.length || (!p.multiple && unique.length > 1) || unique.some((c) => !Number.isInteger(c) || c < 0 || c >= p.options.length)) {
        return 'bad_choices';
      }
      const already = await q.query('SELECT 1 FROM poll_votes WHERE poll_id = $1 AND account_id = $2 LIMIT 1', [pollId, accountId]);
      // A remote server sends one activity per choice of a multiple-choice vote: later choices are accepted.
      if (already.rowCount && !(uris && p.multiple)) return 'already_voted';
      for (const [i, c] of unique.entries()) {
        await q.query('INSERT INTO poll_votes (poll_id, account_id, choice, uri) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING', [pollId, accountId, c, uris?.[i] ?? null]);
      }
      return null;
    });
  }

  /** Counts a remote poll's server publishes (an Update of its Question). */
  async setRemoteCounts(statusId: string, counts: number[], voters: number | null): Promise<void> {
    await this.db.exec('UPDATE polls SET remote_counts = $2, remote_voters = $3 WHERE status_id = $1 AND remote_counts IS NOT NULL', [statusId, counts, voters]);
  }

  /**
   * Announces the end of up to `limit` polls past their end: a `poll` notification for their author (if a member)
   * and for each member who voted, once (SKIP LOCKED lets several nodes share the work). Returns how many closed,
   * and the milliseconds until the next open poll ends (null: none).
   */
  async closeDue(limit: number): Promise<{ closed: number; nextInMs: number | null }> {
    const r = await this.db.one<{ closed: string; next_in_ms: string | null }>(
      `WITH due AS (
         SELECT id FROM polls WHERE closed_at IS NULL AND expires_at <= now() ORDER BY expires_at LIMIT $1 FOR UPDATE SKIP LOCKED
       ), closed AS (
         UPDATE polls p SET closed_at = now() FROM due WHERE p.id = due.id RETURNING p.id, p.status_id, p.account_id
       ), told AS (
         INSERT INTO notifications (account_id, from_account_id, type, status_id)
         SELECT who.account_id, c.account_id, 'poll', c.status_id
         FROM closed c CROSS JOIN LATERAL (SELECT v.account_id FROM poll_votes v WHERE v.poll_id = c.id UNION SELECT c.account_id) who
         WHERE EXISTS (SELECT 1 FROM users u WHERE u.account_id = who.account_id)
         ON CONFLICT DO NOTHING RETURNING 1
       )
       SELECT (SELECT count(*) FROM closed) AS closed, (SELECT count(*) FROM told) AS told,
         (SELECT greatest(0, ceil(extract(epoch FROM min(expires_at) - now()) * 1000)) FROM polls
          WHERE closed_at IS NULL AND expires_at IS NOT NULL AND id NOT IN (SELECT id FROM closed)) AS next_in_ms`,
      [limit],
    );
    return { closed: Number(r!.closed), nextInMs: r!.next_in_ms === null ? null : Number(r!.next_in_ms) };
  }
}
