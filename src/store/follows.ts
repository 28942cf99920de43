// Relationships between accounts: follows and follow requests (waiting for approval, in either direction). Blocks
// are in blocks.ts; relationships() reads both.
import { notifyMembersChanged } from './auth-events.js';
import type { Database } from './db.js';
import { pageSql, type PageQuery } from './paging.js';

/** The most familiar followers listed for one account. */
const FAMILIAR_MAX = 40;
export interface FollowRow {
  readonly id: string;
  readonly accountId: string;
  readonly targetAccountId: string;
  readonly uri: string | null;
}

/** What a follower chose for a follow; undefined keeps what it was (or the default for a new follow). */
export interface FollowOptions {
  readonly showReblogs?: boolean;
  readonly notify?: boolean;
  /** ISO 639 codes, or null for every language. */
  readonly languages?: readonly string[] | null;
}

export interface Relationship {
  readonly id: string;
  readonly following: boolean;
  readonly showingReblogs: boolean;
  readonly notifying: boolean;
  readonly languages: readonly string[] | null;
  readonly followedBy: boolean;
  readonly blocking: boolean;
  readonly blockedBy: boolean;
  readonly requested: boolean;
  readonly requestedBy: boolean;
  readonly muting: boolean;
  readonly mutingNotifications: boolean;
  readonly mutingExpiresAt: Date | null;
  /** The viewer's private note on the account ('' when none: account-notes.ts). */
  readonly note: string;
  /** Whether the viewer endorses the account (endorsements.ts). */
  readonly endorsed: boolean;
  /** The viewer blocks the account's domain (store/account-domain-blocks.ts). */
  readonly domainBlocking: boolean;
}

export interface PagedIds {
  /** [relationship row id, account id], newest first. */
  readonly items: readonly (readonly [string, string])[];
}

type Table = 'follows' | 'follow_requests';

/** $2 leaves every list of $1 (lists hold followed accounts only). */
/** Leaving $1's lists: account $2, when a follow between them ends. */
export const LEAVE_LISTS = 'DELETE FROM list_accounts WHERE account_id = $2 AND list_id IN (SELECT id FROM lists WHERE account_id = $1)';

function toFollow(r: { id: string; account_id: string; target_account_id: string; uri: string | null }): FollowRow {
  return { id: r.id, accountId: r.account_id, targetAccountId: r.target_account_id, uri: r.uri };
}

export class FollowStore {
  constructor(private readonly db: Database) {}

  /**
   * Establishes a follow (from a request or directly); any request for the same pair is settled, and its options
   * carry over unless new ones are given.
   */
  async follow(accountId: string, targetId: string, uri: string | null, o: FollowOptions = {}): Promise<FollowRow> {
    return this.db.tx(async (q) => {
      const asked = (
        await q.query<{ show_reblogs: boolean; notify: boolean; languages: string[] | null }>(
          'DELETE FROM follow_requests WHERE account_id = $1 AND target_account_id = $2 RETURNING show_reblogs, notify, languages',
          [accountId, targetId],
        )
      ).rows[0];
      const r = await q.query<{ id: string; account_id: string; target_account_id: string; uri: string | null }>(
        `INSERT INTO follows (account_id, target_account_id, uri, show_reblogs, notify, languages) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (account_id, target_account_id) DO UPDATE SET uri = coalesce(EXCLUDED.uri, follows.uri)
         RETURNING id, account_id, target_account_id, uri`,
        [
          accountId,
          targetId,
          uri,
          o.showReblogs ?? asked?.show_reblogs ?? true,
          o.notify ?? asked?.notify ?? false,
          o.languages !== undefined ? o.languages : (asked?.languages ?? null),
        ],
      );
      await notifyMembersChanged(this.db, q, [accountId, targetId]);
      return toFollow(r.rows[0]!);
    });
  }

  async request(accountId: string, targetId: string, uri: string | null, o: FollowOptions = {}): Promise<FollowRow> {
    return this.db.tx(async (q) => {
      const r = await q.query<{ id: string; account_id: string; target_account_id: string; uri: string | null }>(
        `INSERT INTO follow_requests (account_id, target_account_id, uri, show_reblogs, notify, languages)
         VALUES ($1, $2, $3, coalesce($4, true), coalesce($5, false), $7::text[])
         ON CONFLICT (account_id, target_account_id) DO UPDATE SET uri = coalesce(EXCLUDED.uri, follow_requests.uri),
           show_reblogs = coalesce($4, follow_requests.show_reblogs), notify = coalesce($5, follow_requests.notify),
           languages = CASE WHEN $6 THEN $7::text[] ELSE follow_requests.languages END
         RETURNING id, account_id, target_account_id, uri`,
        [accountId, targetId, uri, o.showReblogs ?? null, o.notify ?? null, o.languages !== undefined, o.languages ?? null],
      );
      await notifyMembersChanged(this.db, q, [targetId]); // its follow_requests_count
      return toFollow(r.rows[0]!);
    });
  }

  /** Changes the options of an existing follow or pending request (following again with other options). */
  async setOptions(accountId: string, targetId: string, o: FollowOptions): Promise<void> {
    for (const table of ['follows', 'follow_requests'] as const) {
      await this.db.exec(
        `UPDATE ${table} SET show_reblogs = coalesce($3, show_reblogs), notify = coalesce($4, notify),
           languages = CASE WHEN $5 THEN $6::text[] ELSE languages END
         WHERE account_id = $1 AND target_account_id = $2`,
        [accountId, targetId, o.showReblogs ?? null, o.notify ?? null, o.languages !== undefined, o.languages ?? null],
      );
    }
  }

  /** Sets the uri of an outgoing request once its id is known (the activity id derives from the row id). */
  async setRequestUri(id: string, uri: string): Promise<void> {
    await this.db.exec('UPDATE follow_requests SET uri = $2 WHERE id = $1', [id, uri]);
  }

  async find(table: Table, accountId: string, targetId: string): Promise<FollowRow | undefined> {
    const r = await this.db.one<{ id: string; account_id: string; target_account_id: string; uri: string | null }>(
      `SELECT id, account_id, target_account_id, uri FROM ${table} WHERE account_id = $1 AND target_account_id = $2`,
      [accountId, targetId],
    );
    return r && toFollow(r);
  }

  async findByUri(table: Table, uri: string): Promise<FollowRow | undefined> {
    const r = await this.db.one<{ id: string; account_id: string; target_account_id: string; uri: string | null }>(
      `SELECT id, account_id, target_account_id, uri FROM ${table} WHERE uri = $1`,
      [uri],
    );
    return r && toFollow(r);
  }

  /** Removes a follow or a request; returns what was removed. An account no longer followed leaves the lists. */
  async remove(table: Table, accountId: string, targetId: string): Promise<FollowRow | undefined> {
    return this.db.tx(async (q) => {
      const r = (
        await q.query<{ id: string; account_id: string; target_account_id: string; uri: string | null }>(
          `DELETE FROM ${table} WHERE account_id = $1 AND target_account_id = $2 RETURNING id, account_id, target_account_id, uri`,
          [accountId, targetId],
        )
      ).rows[0];
      if (!r) return undefined;
      if (table === 'follows') await q.query(LEAVE_LISTS, [accountId, targetId]);
      await notifyMembersChanged(this.db, q, [accountId, targetId]);
      return toFollow(r);
    });
  }

  async relationships(accountId: string, targetIds: readonly string[]): Promise<Relationship[]> {
    const rows = await this.db.rows<{
      id: string;
      following: boolean;
      show_reblogs: boolean | null;
      notify: boolean | null;
      languages: string[] | null;
      followed_by: boolean;
      blocking: boolean;
      blocked_by: boolean;
      requested: boolean;
      requested_by: boolean;
      muting: boolean;
      muting_notifications: boolean;
      muting_expires_at: Date | null;
      note: string;
      endorsed: boolean;
      domain_blocking: boolean;
    }>(
      `SELECT t.id::text AS id,
         f.id IS NOT NULL AS following, coalesce(f.show_reblogs, fr.show_reblogs) AS show_reblogs, coalesce(f.notify, fr.notify) AS notify,
         coalesce(f.languages, fr.languages) AS languages,
         EXISTS (SELECT 1 FROM follows WHERE account_id = t.id AND target_account_id = $1) AS followed_by,
         EXISTS (SELECT 1 FROM blocks WHERE account_id = $1 AND target_account_id = t.id) AS blocking,
         EXISTS (SELECT 1 FROM blocks WHERE account_id = t.id AND target_account_id = $1) AS blocked_by,
         fr.id IS NOT NULL AS requested,
         EXISTS (SELECT 1 FROM follow_requests WHERE account_id = t.id AND target_account_id = $1) AS requested_by,
         mu.id IS NOT NULL AS muting, coalesce(mu.hide_notifications, false) AS muting_notifications, mu.expires_at AS muting_expires_at,
         coalesce((SELECT comment FROM account_notes WHERE account_id = $1 AND target_account_id = t.id), '') AS note,
         EXISTS (SELECT 1 FROM account_pins WHERE account_id = $1 AND target_account_id = t.id) AS endorsed,
         EXISTS (SELECT 1 FROM accounts ta JOIN account_domain_blocks adb ON adb.account_id = $1 AND adb.domain = lower(ta.domain) WHERE ta.id = t.id) AS domain_blocking
       FROM unnest($2::bigint[]) WITH ORDINALITY AS t(id, n)
       LEFT JOIN follows f ON f.account_id = $1 AND f.target_account_id = t.id
       LEFT JOIN follow_requests fr ON fr.account_id = $1 AND fr.target_account_id = t.id
       LEFT JOIN mutes mu ON mu.account_id = $1 AND mu.target_account_id = t.id AND (mu.expires_at IS NULL OR mu.expires_at > now())
       ORDER BY t.n`,
      [accountId, targetIds],
    );
    return rows.map((r) => ({
      id: r.id,
      following: r.following,
      showingReblogs: r.show_reblogs ?? false,
      notifying: r.notify ?? false,
      languages: r.languages,
      followedBy: r.followed_by,
      blocking: r.blocking,
      blockedBy: r.blocked_by,
      requested: r.requested,
      requestedBy: r.requested_by,
      muting: r.muting,
      mutingNotifications: r.muting_notifications,
      mutingExpiresAt: r.muting_expires_at,
      note: r.note,
      endorsed: r.endorsed,
      domainBlocking: r.domain_blocking,
    }));
  }

  /**
   * Mastodon's familiar followers: for each of `targetIds`, the accounts `viewerId` follows that follow it (live ones),
   * as [target id, follower id] pairs, the most recent follow first, at most FAMILIAR_MAX a target (a member who
   * follows thousands asking about popular accounts would otherwise get them all; clients show a few).
   */
  async familiarFollowers(viewerId: string, targetIds: readonly string[]): Promise<(readonly [string, string])[]> {
    const rows = await this.db.rows<{ target: string; follower: string }>(
      `SELECT t.id::text AS target, ff.follower FROM unnest($2::bigint[]) AS t(id)
       CROSS JOIN LATERAL (
         SELECT f.account_id::text AS follower
         FROM follows f JOIN follows mine ON mine.account_id = $1 AND mine.target_account_id = f.account_id
         JOIN accounts a ON a.id = f.account_id
         WHERE f.target_account_id = t.id AND a.deleted_at IS NULL AND a.suspended_at IS NULL
         ORDER BY f.id DESC LIMIT ${FAMILIAR_MAX}) ff`,
      [viewerId, targetIds],
    );
    return rows.map((r) => [r.target, r.follower] as const);
  }

  /** Accounts following `accountId` (direction 'followers') or followed by it ('following'), or requesting to follow it. */
  async page(kind: 'followers' | 'following' | 'requests', accountId: string, p: PageQuery): Promise<PagedIds> {
    const table = kind === 'requests' ? 'follow_requests' : 'follows';
    const [mine, other] = kind === 'following' ? ['account_id', 'target_account_id'] : ['target_account_id', 'account_id'];
    const values: unknown[] = [accountId];
    const page = pageSql(p, 'r.id', values);
    const rows = await this.db.rows<{ id: string; other: string }>(
      `SELECT r.id, r.${other} AS other FROM ${table} r JOIN accounts a ON a.id = r.${other}
       WHERE r.${mine} = $1 AND a.deleted_at IS NULL${page.where}${page.orderLimit}`,
      values,
    );
    return { items: page.newestFirst(rows).map((r) => [r.id, r.other] as const) };
  }

  /**
   * Members of an actor's followers/following collection for its ActivityPub pages, newest first: remote actors by
   * their URI, local ones by username (the caller derives their URI).
   */
  async collectionPage(kind: 'followers' | 'following', accountId: string, limit: number, offset: number): Promise<{ uri: string | null; username: string }[]> {
    const [mine, other] = kind === 'following' ? ['account_id', 'target_account_id'] : ['target_account_id', 'account_id'];
    return this.db.rows<{ uri: string | null; username: string }>(
      `SELECT a.uri, a.username FROM follows r JOIN accounts a ON a.id = r.${other}
       WHERE r.${mine} = $1 AND a.deleted_at IS NULL ORDER BY r.id DESC LIMIT $2 OFFSET $3`,
      [accountId, limit, offset],
    );
  }

  async counts(accountId: string): Promise<{ followers: number; following: number; requests: number }> {
    const r = await this.db.one<{ followers: string; following: string; requests: string }>(
      `SELECT coalesce((SELECT followers FROM account_counts WHERE account_id = $1), 0) AS followers,
              coalesce((SELECT following FROM account_counts WHERE account_id = $1), 0) AS following,
              (SELECT count(*) FROM follow_requests WHERE target_account_id = $1) AS requests`,
      [accountId],
    );
    return { followers: Number(r!.followers), following: Number(r!.following), requests: Number(r!.requests) };
  }

  /** Follower/following/status counts for many accounts at once (entity rendering), as migration 053's triggers keep them. */
  async countsFor(ids: readonly string[]): Promise<Map<string, { followers: number; following: number; statuses: number; lastStatusAt: Date | null }>> {
    const rows = await this.db.rows<{ id: string; followers: number; following: number; statuses: number; last_status_at: Date | null }>(
      `SELECT t.id::text AS id, coalesce(c.followers, 0) AS followers, coalesce(c.following, 0) AS following, coalesce(c.statuses, 0) AS statuses,
         c.last_status_at
       FROM unnest($1::bigint[]) AS t(id) LEFT JOIN account_counts c ON c.account_id = t.id`,
      [ids],
      'prepared',
    );
    return new Map(rows.map((r) => [r.id, { followers: r.followers, following: r.following, statuses: r.statuses, lastStatusAt: r.last_status_at }]));
  }

  /** Whether any local account follows this (remote) account: its posts then belong in someone's home. */
  async hasLocalFollowers(accountId: string): Promise<boolean> {
    const r = await this.db.one<{ ok: boolean }>(
      'SELECT EXISTS (SELECT 1 FROM follows f JOIN accounts a ON a.id = f.account_id WHERE f.target_account_id = $1 AND a.domain IS NULL) AS ok',
      [accountId],
    );
    return r?.ok === true;
  }

  /**
   * The inboxes of the account's remote followers, one per shared inbox: read from the remote follows only
   * (follows_target_remote, migration 079), so a post's cost does not grow with its author's local followers.
   */
  async followerInboxes(accountId: string): Promise<string[]> {
    const rows = await this.db.rows<{ inbox: string }>(
      `SELECT DISTINCT coalesce(a.shared_inbox_url, a.inbox_url) AS inbox FROM follows f JOIN accounts a ON a.id = f.account_id
       WHERE f.target_account_id = $1 AND f.follower_remote AND a.domain IS NOT NULL AND a.deleted_at IS NULL AND a.inbox_url IS NOT NULL`,
      [accountId],
    );
    return rows.map((r) => r.inbox);
  }

  /** Every remote server connected to the account (followers, followed, pending either way): for actor Updates. */
  async connectedInboxes(accountId: string): Promise<string[]> {
    const rows = await this.db.rows<{ inbox: string }>(
      `SELECT DISTINCT coalesce(a.shared_inbox_url, a.inbox_url) AS inbox FROM accounts a
       WHERE a.domain IS NOT NULL AND a.deleted_at IS NULL AND a.inbox_url IS NOT NULL AND a.id IN (
         SELECT account_id FROM follows WHERE target_account_id = $1 UNION SELECT target_account_id FROM follows WHERE account_id = $1
         UNION SELECT account_id FROM follow_requests WHERE target_account_id = $1
         UNION SELECT target_account_id FROM follow_requests WHERE account_id = $1)`,
      [accountId],
    );
    return rows.map((r) => r.inbox);
  }
}
