// Statuses with their mentions and hashtags: storing, editing, deleting and reading them one at a time or by id,
// each read through the visibility rules of visibility.ts. The timelines that list them are in timelines.ts.
import { notifyMembersChanged } from './auth-events.js';
import { joinConversations, leaveConversations } from './conversations.js';
import type { Database, Queryable } from './db.js';
import { isId } from './ids.js';
import { quiet, visibleTo } from './visibility.js';
import { queueCard } from './preview-cards.js';
import { linkStatus } from './status-links.js';
import { editStatus, statusVersions, type EditOutcome, type StatusEdit, type StatusVersion } from './status-edits.js';
import { STATUS_COLUMNS, VISIBILITIES, tagKey, toStatus, type NewStatus, type Status, type StatusRow } from './status-rows.js';

export { QUOTE_POLICIES, STATUS_COLUMNS, STATUS_ROWS, VISIBILITIES, newBoost, tagKey, toStatus } from './status-rows.js';
export type { NewStatus, QuotePolicy, Status, StatusRow, Visibility } from './status-rows.js';

export class StatusStore {
  constructor(private readonly db: Database) {}

  /**
   * Stores a status with its mentions and tags. With an idempotency key, a repeat within a day returns the status
   * the first request created (created: false).
   */
  async create(s: NewStatus, idempotencyKey?: string): Promise<{ status: Status; created: boolean }> {
    const id = await this.db.tx(async (q) => {
      if (idempotencyKey !== undefined) {
        await q.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`status-idem:${s.accountId}:${idempotencyKey}`]);
        const seen = await q.query<{ status_id: string }>(
          `SELECT status_id FROM status_idempotency WHERE account_id = $1 AND key = $2 AND created_at > now() - interval '1 day'`,
          [s.accountId, idempotencyKey],
        );
        if (seen.rows[0]) return { id: seen.rows[0].status_id, created: false };
      }
      // An id is the creation time's milliseconds and 16 bits of a sequence. A backdated post (history) takes its
      // published time, which many posts can share to the millisecond (servers that publish whole seconds), so two of
      // them can meet on an id once the sequence has gone round; that conflict is not "already there": take another.
      let inserted: string | undefined;
      for (let attempt = 1; inserted === undefined; attempt++) {
        const r = await q.query<{ id: string }>(
          `INSERT INTO statuses (id, account_id, uri, url, text, content, spoiler_text, visibility, sensitive, language, in_reply_to_id,
             in_reply_to_account_id, in_reply_to_uri, local, created_at, reblog_of_id, quote_of_id, quote_uri, application_id, history, quote_policy)
           VALUES (timestamp_id(CASE WHEN $19 THEN coalesce($14, now()) ELSE now() END), $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12,
             $13, coalesce($14, now()), $15, $16, $17, $18, $19, $20)
           ON CONFLICT DO NOTHING RETURNING id`,
          [
            s.accountId,
            s.uri,
            s.url,
            s.text,
            s.content,
            s.spoilerText,
            VISIBILITIES.indexOf(s.visibility),
            s.sensitive,
            s.language,
            s.inReplyToId,
            s.inReplyToAccountId,
            s.inReplyToUri,
            s.local,
            s.createdAt ?? null,
            s.reblogOfId ?? null,
            s.quoteOfId ?? null,
            s.quoteUri ?? null,
            s.applicationId ?? null,
            s.history ?? false,
            s.quotePolicy ?? 'public',
          ],
        );
        inserted = r.rows[0]?.id;
        if (inserted !== undefined) break;
        // Already there: the same remote post arrived twice at once (shared and personal inbox), or a second boost.
        const existing = await q.query<{ id: string }>(
          'SELECT id FROM statuses WHERE uri = $1 OR (account_id = $2 AND reblog_of_id = $3 AND deleted_at IS NULL) LIMIT 1',
          [s.uri, s.accountId, s.reblogOfId ?? null],
        );
        if (existing.rows[0]) return { id: existing.rows[0].id, created: false };
        if (attempt >= 5) throw new Error(`no free status id at ${s.createdAt?.toISOString() ?? 'now'} after ${attempt} attempts`);
      }
      const id = inserted;
      await this.link(q, id, s.mentionIds, s.tags);
      // The link the status is about (trends, the link timeline): one upsert and one row, only when it has one.
      if (!s.reblogOfId) {
        const url = await linkStatus(q, id, s.content, s.local);
        // Its preview card, fetched in the background (Mastodon's LinkCrawlWorker); not for history imports.
        if (url !== null && !s.history) await queueCard(q, id, url);
      }
      // A history post joins no conversation until a delivery promotes it (promote()).
      if (s.visibility === 'direct' && !s.history) await joinConversations(q, id);
      if (s.local) await notifyMembersChanged(this.db, q, [s.accountId]); // statuses_count
      if (idempotencyKey !== undefined) {
        await q.query(
          `INSERT INTO status_idempotency (account_id, key, status_id) VALUES ($1, $2, $3)
           ON CONFLICT (account_id, key) DO UPDATE SET status_id = EXCLUDED.status_id, created_at = now()`,
          [s.accountId, idempotencyKey, id],
        );
      }
      return { id, created: true };
    });
    return { status: (await this.byId(id.id))!, created: id.created };
  }

  /** Those of `accountIds` that `viewerId` follows (a quote policy of "followers" asks it of a page's authors). */
  async followedAmong(viewerId: string, accountIds: readonly string[]): Promise<Set<string>> {
    if (accountIds.length === 0) return new Set();
    const rows = await this.db.rows<{ id: string }>(
      'SELECT target_account_id::text AS id FROM follows WHERE account_id = $1 AND target_account_id = ANY($2::bigint[])',
      [viewerId, accountIds],
    );
    return new Set(rows.map((r) => r.id));
  }

  /** Those of `viewerIds` who follow `accountId` (streaming: who a "followers" quote policy lets quote). */
  async followersAmong(accountId: string, viewerIds: readonly string[]): Promise<Set<string>> {
    if (viewerIds.length === 0) return new Set();
    const rows = await this.db.rows<{ id: string }>(
      'SELECT account_id::text AS id FROM follows WHERE target_account_id = $1 AND account_id = ANY($2::bigint[])',
      [accountId, viewerIds],
    );
    return new Set(rows.map((r) => r.id));
  }

  private async link(q: Queryable, statusId: string, mentionIds: readonly string[], tags: readonly string[]): Promise<void> {
    if (mentionIds.length) {
      await q.query('INSERT INTO status_mentions (status_id, account_id) SELECT $1, unnest($2::bigint[]) ON CONFLICT DO NOTHING', [statusId, mentionIds]);
    }
    for (const name of tags) {
      const t = await q.query<{ id: string }>(`INSERT INTO tags (name, key) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET name = tags.name RETURNING id`, [
        name,
        tagKey(name),
      ]);
      await q.query('INSERT INTO status_tags (status_id, tag_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [statusId, t.rows[0]!.id]);
    }
  }

  async byId(id: string): Promise<Status | undefined> {
    if (!isId(id)) return undefined;
    const r = await this.db.one<StatusRow>(`SELECT ${STATUS_COLUMNS} FROM statuses s WHERE s.id = $1`, [id]);
    return r && toStatus(r);
  }

  async byIds(ids: readonly string[]): Promise<Status[]> {
    const valid = ids.filter(isId);
    if (valid.length === 0) return [];
    return (await this.db.rows<StatusRow>(`SELECT ${STATUS_COLUMNS} FROM statuses s WHERE s.id = ANY($1::bigint[])`, [valid])).map(toStatus);
  }

  /** The member's live boost of a status, if any. */
  async reblogBy(accountId: string, statusId: string): Promise<Status | undefined> {
    const r = await this.db.one<StatusRow>(
      `SELECT ${STATUS_COLUMNS} FROM statuses s WHERE s.account_id = $1 AND s.reblog_of_id = $2 AND s.deleted_at IS NULL`,
      [accountId, statusId],
    );
    return r && toStatus(r);
  }

  async byUri(uri: string): Promise<Status | undefined> {
    const r = await this.db.one<StatusRow>(`SELECT ${STATUS_COLUMNS} FROM statuses s WHERE s.uri = $1`, [uri]);
    return r && toStatus(r);
  }

  /**
   * The status with this id if the viewer may read it. throughBoost: a (live) boost's id stands for the boosted
   * status, as clients show the boost in its place when they act on it or reply to it.
   */
  async readable(id: string, viewerId: string | null, throughBoost = false): Promise<Status | undefined> {
    if (!isId(id)) return undefined;
    // One statement: the status (or, through a live boost, the boosted one) and the visibility rule.
    const values: unknown[] = [id, throughBoost];
    const v = viewerId === null ? null : `$${values.push(viewerId)}`;
    const r = await this.db.one<StatusRow>(
      `SELECT ${STATUS_COLUMNS} FROM statuses s
       WHERE s.id = (SELECT CASE WHEN $2 AND x.reblog_of_id IS NOT NULL AND x.deleted_at IS NULL THEN x.reblog_of_id ELSE x.id END FROM statuses x WHERE x.id = $1)
         AND ${visibleTo(v)}`,
      values,
      'prepared',
    );
    return r && toStatus(r);
  }

  /** Whether the viewer (null: anonymous) may read the status. */
  async canSee(s: Status, viewerId: string | null): Promise<boolean> {
    return (await this.visibleAmong([s.id], viewerId)).length === 1;
  }

  /** The statuses among `ids` that the viewer (null: anonymous) may read, in no particular order. */
  async visibleAmong(ids: readonly string[], viewerId: string | null): Promise<Status[]> {
    const valid = ids.filter(isId);
    if (valid.length === 0) return [];
    const values: unknown[] = [valid];
    const v = viewerId === null ? null : `$${values.push(viewerId)}`;
    return (await this.db.rows<StatusRow>(`SELECT ${STATUS_COLUMNS} FROM statuses s WHERE s.id = ANY($1::bigint[]) AND ${visibleTo(v)}`, values)).map(toStatus);
  }

  /** An account's pinned statuses that the viewer may read, newest pin first; `tagged`: those with that hashtag. */
  async pinnedOf(accountId: string, viewerId: string | null, tagged?: string): Promise<Status[]> {
    const values: unknown[] = [accountId];
    const v = viewerId === null ? null : `$${values.push(viewerId)}`;
    // Only those with hashtag `tagged` (Mastodon's AccountStatusesFilter merges pinned and tagged).
    const tag =
      tagged === undefined
        ? ''
        : ` AND EXISTS (SELECT 1 FROM status_tags st JOIN tags t ON t.id = st.tag_id WHERE st.status_id = s.id AND t.key = $${values.push(tagKey(tagged))})`;
    return (
      await this.db.rows<StatusRow>(
        `SELECT ${STATUS_COLUMNS} FROM pins p JOIN statuses s ON s.id = p.status_id WHERE p.account_id = $1 AND s.account_id = $1 AND ${visibleTo(v)}${tag} ORDER BY p.id DESC`,
        values,
      )
    ).map(toStatus);
  }

  /** Applies an edit (store/status-edits.ts); the status as it now is, unless none was found or media refused. */
  async edit(id: string, e: StatusEdit): Promise<{ outcome: EditOutcome; status?: Status }> {
    const outcome = await editStatus(this.db, id, e, (q, statusId, mentionIds, tags) => this.link(q, statusId, mentionIds, tags));
    return { outcome, status: outcome === 'edited' || outcome === 'unchanged' ? await this.byId(id) : undefined };
  }

  /** The versions of an edited status, oldest first (empty for one never edited). */
  async history(id: string): Promise<StatusVersion[]> {
    return statusVersions(this.db, id);
  }

  /** Local accounts that boosted the status (told when it is edited). */
  async localBoosters(id: string): Promise<string[]> {
    const rows = await this.db.rows<{ account_id: string }>(
      'SELECT DISTINCT r.account_id FROM statuses r JOIN users u ON u.account_id = r.account_id WHERE r.reblog_of_id = $1 AND r.deleted_at IS NULL',
      [id],
    );
    return rows.map((r) => r.account_id);
  }

  /**
   * Remote accounts that interacted with the status (boosted, favourited, reacted, replied or voted): their servers
   * hold a copy and are told of its edits and deletion, as Mastodon's StatusReachFinder reaches them. Bounded.
   */
  async remoteReach(id: string): Promise<string[]> {
    const rows = await this.db.rows<{ id: string }>(
      `SELECT a.id FROM accounts a WHERE a.domain IS NOT NULL AND a.deleted_at IS NULL AND a.id IN (
         SELECT account_id FROM statuses WHERE (reblog_of_id = $1 OR in_reply_to_id = $1) AND deleted_at IS NULL
         UNION SELECT account_id FROM favourites WHERE status_id = $1
         UNION SELECT account_id FROM status_reactions WHERE status_id = $1
         UNION SELECT v.account_id FROM poll_votes v JOIN polls p ON p.id = v.poll_id WHERE p.status_id = $1)
       LIMIT 2000`,
      [id],
    );
    return rows.map((r) => r.id);
  }

  /** Every status of an account that no longer exists (a remote actor's Delete). */
  async softDeleteAllOf(accountId: string): Promise<void> {
    await this.db.tx(async (q) => {
      const r = await q.query<{ direct: string[] | null }>(
        `WITH d AS (UPDATE statuses SET deleted_at = now() WHERE account_id = $1 AND deleted_at IS NULL RETURNING id, visibility)
         SELECT array_agg(id::text) FILTER (WHERE visibility = 3) AS direct FROM d`,
        [accountId],
      );
      await leaveConversations(q, r.rows[0]?.direct ?? []);
    });
  }

  /**
   * A remote history post received through delivery (spec Events §2): from now on it is listed wherever a delivered
   * post would be. True for the one call that promoted it (two inboxes delivering at once notify once).
   */
  async promote(id: string): Promise<boolean> {
    return this.db.tx(async (q) => {
      const r = await q.query<{ visibility: number }>('UPDATE statuses SET history = false WHERE id = $1 AND history RETURNING visibility', [id]);
      if (r.rows[0]?.visibility === 3) await joinConversations(q, id);
      return r.rows.length > 0;
    });
  }

  /** Marks a status deleted (its row stays for the Delete we send and for replies pointing at it). */
  async softDelete(id: string): Promise<boolean> {
    return this.db.tx(async (q) => {
      const r = await q.query<{ account_id: string; local: boolean; visibility: number }>(
        'UPDATE statuses SET deleted_at = now() WHERE id = $1 AND deleted_at IS NULL RETURNING account_id, local, visibility',
        [id],
      );
      if (r.rows[0]?.local) {
        await notifyMembersChanged(this.db, q, [r.rows[0].account_id]);
        // The uploads go back to their owner, as Mastodon nullifies them: delete-and-redraft posts them again.
        await q.query('UPDATE media_attachments SET status_id = NULL, removed = false, position = 0 WHERE status_id = $1', [id]);
      }
      if (r.rows[0]?.visibility === 3) await leaveConversations(q, [id]);
      return r.rows.length > 0;
    });
  }

  /** An account's public and unlisted statuses (what its outbox lists). */
  async countPublic(accountId: string): Promise<number> {
    const r = await this.db.one<{ n: number }>(
      'SELECT count(*)::int AS n FROM statuses WHERE account_id = $1 AND deleted_at IS NULL AND visibility <= 1 AND reblog_of_id IS NULL',
      [accountId],
    );
    return r?.n ?? 0;
  }

  /** Replies to a status (direct children), oldest first. */
  async repliesTo(id: string, viewerId: string | null, limit: number): Promise<Status[]> {
    const values: unknown[] = [id];
    const v = viewerId === null ? null : `$${values.push(viewerId)}`;
    const vis = v === null ? visibleTo(null) : `${visibleTo(v)} AND ${quiet(v)}`;
    const rows = await this.db.rows<StatusRow>(
      `SELECT ${STATUS_COLUMNS} FROM statuses s WHERE s.in_reply_to_id = $1 AND ${vis} ORDER BY s.id LIMIT ${limit}`,
      values,
    );
    return rows.map(toStatus);
  }
}
