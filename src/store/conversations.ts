// Direct-message conversations as each local member sees them (Mastodon's AccountConversation): one per thread and
// set of other participants, listing the thread's direct statuses the member took part in. Kept up to date in the
// transactions that store and delete statuses (store/statuses.ts calls joinConversations and leaveConversations),
// so every path that creates or removes a direct status (a member's post, a delivered Create, a Delete, a deleted
// actor) maintains them.
import type { Database, Queryable } from './db.js';
import { pageSql, type PageQuery } from './paging.js';

export interface Conversation {
  readonly id: string;
  readonly accountId: string;
  /** The other participants (sorted); empty for a note to oneself. */
  readonly participantIds: readonly string[];
  readonly lastStatusId: string;
  readonly unread: boolean;
}

interface Row {
  [k: string]: unknown;
  id: string;
  account_id: string;
  participant_ids: string[];
  last_status_id: string;
  unread: boolean;
}

const COLUMNS = 'c.id, c.account_id, ARRAY(SELECT p::text FROM unnest(c.participant_ids) p) AS participant_ids, c.last_status_id, c.unread';
const toConversation = (r: Row): Conversation => ({
  id: r.id,
  accountId: r.account_id,
  participantIds: r.participant_ids,
  lastStatusId: r.last_status_id,
  unread: r.unread,
});

/**
 * A direct status joins the conversations of its local participants: its author's (read) and each mentioned
 * member's (unread), except a member who blocks the author, mutes their notifications or blocks their domain (they
 * are not told of it either). The thread is the top of the reply chain we hold, or the uri that top replies to when we lack the post.
 */
export async function joinConversations(q: Queryable, statusId: string): Promise<void> {
  await q.query(
    `WITH RECURSIVE up(id, parent, parent_uri, depth) AS (
       SELECT id, in_reply_to_id, in_reply_to_uri, 0 FROM statuses WHERE id = $1
       UNION ALL
       SELECT s.id, s.in_reply_to_id, s.in_reply_to_uri, up.depth + 1 FROM statuses s JOIN up ON s.id = up.parent WHERE up.depth < 100),
     thread AS (SELECT coalesce(CASE WHEN parent IS NULL THEN parent_uri END, id::text) AS key FROM up ORDER BY depth DESC LIMIT 1),
     st AS (SELECT id, account_id FROM statuses WHERE id = $1 AND visibility = 3),
     everyone AS (SELECT account_id AS id FROM st UNION SELECT m.account_id FROM status_mentions m WHERE m.status_id = $1),
     recipients AS (
       SELECT e.id FROM everyone e, st WHERE EXISTS (SELECT 1 FROM users u WHERE u.account_id = e.id)
         AND (e.id = st.account_id OR (
           NOT EXISTS (SELECT 1 FROM blocks b WHERE b.account_id = e.id AND b.target_account_id = st.account_id)
           AND NOT EXISTS (SELECT 1 FROM mutes mu WHERE mu.account_id = e.id AND mu.target_account_id = st.account_id AND mu.hide_notifications
             AND (mu.expires_at IS NULL OR mu.expires_at > now()))
           AND NOT EXISTS (SELECT 1 FROM accounts sa JOIN account_domain_blocks adb ON adb.domain = lower(sa.domain)
             WHERE sa.id = st.account_id AND adb.account_id = e.id))))
     INSERT INTO account_conversations (account_id, thread, participant_ids, status_ids, last_status_id, unread)
     SELECT r.id, thread.key, ARRAY(SELECT e.id FROM everyone e WHERE e.id <> r.id ORDER BY e.id), ARRAY[st.id], st.id, r.id <> st.account_id
     FROM recipients r, thread, st
     ON CONFLICT (account_id, thread, participant_ids) DO UPDATE SET
       status_ids = account_conversations.status_ids || EXCLUDED.status_ids,
       last_status_id = greatest(account_conversations.last_status_id, EXCLUDED.last_status_id),
       unread = EXCLUDED.unread
     WHERE NOT (account_conversations.status_ids @> EXCLUDED.status_ids)`,
    [statusId],
  );
}

/**
 * Deleted direct statuses leave their conversations: the last status falls back to the newest one left, and a
 * conversation left empty is gone.
 */
export async function leaveConversations(q: Queryable, statusIds: readonly string[]): Promise<void> {
  if (statusIds.length === 0) return;
  await q.query('DELETE FROM account_conversations WHERE status_ids && $1::bigint[] AND status_ids <@ $1::bigint[]', [statusIds]);
  await q.query(
    `UPDATE account_conversations SET
       status_ids = ARRAY(SELECT x FROM unnest(status_ids) x WHERE NOT (x = ANY($1::bigint[])) ORDER BY x),
       last_status_id = (SELECT max(x) FROM unnest(status_ids) x WHERE NOT (x = ANY($1::bigint[])))
     WHERE status_ids && $1::bigint[]`,
    [statusIds],
  );
}

export class ConversationStore {
  constructor(private readonly db: Database) {}

  /** The member's conversations, most recently active first, paged by their last status's id (as Mastodon does). */
  async list(accountId: string, page: PageQuery): Promise<Conversation[]> {
    const values: unknown[] = [accountId];
    const p = pageSql(page, 'c.last_status_id', values);
    return p.newestFirst(
      (await this.db.rows<Row>(`SELECT ${COLUMNS} FROM account_conversations c WHERE c.account_id = $1${p.where}${p.orderLimit}`, values)).map(toConversation),
    );
  }

  /** One of the member's conversations. */
  async byId(accountId: string, id: string): Promise<Conversation | undefined> {
    const r = await this.db.one<Row>(`SELECT ${COLUMNS} FROM account_conversations c WHERE c.account_id = $1 AND c.id = $2`, [accountId, id]);
    return r && toConversation(r);
  }

  /** Marks one of the member's conversations read (or unread again, as Mastodon's web UI's "mark as unread"). */
  async setUnread(accountId: string, id: string, unread: boolean): Promise<Conversation | undefined> {
    const r = await this.db.one<Row>(
      `WITH c AS (UPDATE account_conversations SET unread = $3 WHERE account_id = $1 AND id = $2 RETURNING *) SELECT ${COLUMNS} FROM c`,
      [accountId, id, unread],
    );
    return r && toConversation(r);
  }

  /** Removes the conversation from the member's list (a new message in the thread starts it again). */
  async remove(accountId: string, id: string): Promise<boolean> {
    return (await this.db.exec('DELETE FROM account_conversations WHERE account_id = $1 AND id = $2', [accountId, id])) > 0;
  }
}
