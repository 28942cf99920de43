// The link aggregator's records (migration 070): the numeric ids Lemmy clients see for instances, people and
// communities; posts and comments as statuses filed in a community's tree; votes, whose counts and ranks the
// database keeps (triggers). Federation (inbound and outbound) and the /api/v3 adapter both write through here.
import type { Database } from './db.js';

export type LinkPostRecord = {
  /** The post's Lemmy id. */
  readonly id: number;
  readonly statusId: string;
  readonly communityId: number;
  readonly name: string;
  readonly url: string | null;
  readonly body: string;
};

export type CommentRecord = {
  /** The comment's Lemmy id. */
  readonly id: number;
  readonly statusId: string;
  readonly postId: number;
  /** '0.<ancestor ids>.<own id>' */
  readonly path: string;
};

export interface NewLinkPost {
  readonly statusId: string;
  readonly communityId: number;
  readonly name: string;
  readonly url: string | null;
  readonly body: string;
  readonly nsfw: boolean;
  readonly published: Date;
}

const POST_COLUMNS = `id::int AS id, status_id::text AS "statusId", community_id::int AS "communityId", name, url, body`;
/** Rows per statement of the rank refresh (Lemmy's batch: larger ones tend to seq scans and hold more locks). */
const RANK_BATCH = 1000;
const COMMENT_COLUMNS = `id::int AS id, status_id::text AS "statusId", post_id::int AS "postId", path`;

export class LinkAggregatorStore {
  constructor(private readonly db: Database) {}

  /** The Lemmy id of the instance at `domain` (host[:port]; '' for this server), made if new. */
  async instanceId(domain: string): Promise<number> {
    return this.ensure('lemmy_instances', 'domain', domain.toLowerCase());
  }

  /** The Lemmy person id of an account (local or remote), made if new. */
  async personId(accountId: string): Promise<number> {
    return this.ensure('lemmy_persons', 'account_id', accountId);
  }

  /** The account behind a Lemmy person id. */
  async personAccount(id: number): Promise<string | undefined> {
    return (await this.db.one<{ a: string }>('SELECT account_id::text AS a FROM lemmy_persons WHERE id = $1', [id], 'prepared'))?.a;
  }

  /** The Lemmy community id of a Group account, made if new. */
  async communityId(accountId: string): Promise<number> {
    return this.ensure('lemmy_communities', 'account_id', accountId);
  }

  /** The community id of an account already known as one. */
  async communityOf(accountId: string): Promise<number | undefined> {
    return (await this.db.one<{ id: number }>('SELECT id::int AS id FROM lemmy_communities WHERE account_id = $1', [accountId], 'prepared'))?.id;
  }

  /** The Group account behind a Lemmy community id. */
  async communityAccount(id: number): Promise<string | undefined> {
    return (await this.db.one<{ a: string }>('SELECT account_id::text AS a FROM lemmy_communities WHERE id = $1', [id], 'prepared'))?.a;
  }

  /** The community's moderators collection and flags, from its Group document. */
  async describeCommunity(id: number, moderatorsUrl: string | null, postingRestrictedToMods: boolean, nsfw: boolean): Promise<void> {
    await this.db.exec('UPDATE lemmy_communities SET moderators_url = $2, posting_restricted_to_mods = $3, nsfw = $4 WHERE id = $1', [
      id,
      moderatorsUrl,
      postingRestrictedToMods,
      nsfw,
    ]);
  }

  /** The community's moderators, in the collection's order (replaces the list). */
  async setModerators(communityId: number, accountIds: readonly string[]): Promise<void> {
    await this.db.tx(async () => {
      await this.db.exec('DELETE FROM lemmy_community_moderators WHERE community_id = $1', [communityId]);
      await this.db.exec(
        `INSERT INTO lemmy_community_moderators (community_id, account_id, position)
         SELECT $1, a, p - 1 FROM unnest($2::bigint[]) WITH ORDINALITY AS m(a, p) ON CONFLICT DO NOTHING`,
        [communityId, accountIds],
      );
    });
  }

  /** Files a status as a post of a community; the same status again returns the post it already is. */
  async recordPost(p: NewLinkPost): Promise<LinkPostRecord> {
    const row = await this.db.one<LinkPostRecord>(
      `INSERT INTO lemmy_posts (status_id, community_id, name, url, body, nsfw, published, newest_comment_time)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $7)
       ON CONFLICT (status_id) DO NOTHING RETURNING ${POST_COLUMNS}`,
      [p.statusId, p.communityId, p.name, p.url, p.body, p.nsfw, p.published],
    );
    return row ?? (await this.postByStatus(p.statusId))!;
  }

  /** An edit of a post's title, link and body (the status holds the rest). */
  async editPost(statusId: string, name: string, url: string | null, body: string, nsfw: boolean): Promise<void> {
    await this.db.exec('UPDATE lemmy_posts SET name = $2, url = $3, body = $4, nsfw = $5 WHERE status_id = $1', [statusId, name, url, body, nsfw]);
  }

  async postByStatus(statusId: string): Promise<LinkPostRecord | undefined> {
    return this.db.one<LinkPostRecord>(`SELECT ${POST_COLUMNS} FROM lemmy_posts WHERE status_id = $1`, [statusId], 'prepared');
  }

  async postById(id: number): Promise<LinkPostRecord | undefined> {
    return this.db.one<LinkPostRecord>(`SELECT ${POST_COLUMNS} FROM lemmy_posts WHERE id = $1`, [id], 'prepared');
  }

  /**
   * Files a status as a comment of a post, under `parent` (another comment of the same post) or at the top; the
   * same status again returns the comment it already is.
   */
  async recordComment(statusId: string, postId: number, parent: CommentRecord | null, body: string, published: Date): Promise<CommentRecord> {
    const row = await this.db.one<CommentRecord>(
      `INSERT INTO lemmy_comments (id, status_id, post_id, path, body, published)
       SELECT n, $1, $2, $3 || '.' || n, $4, $5 FROM nextval('lemmy_comments_id_seq') AS n
       ON CONFLICT (status_id) DO NOTHING RETURNING ${COMMENT_COLUMNS}`,
      [statusId, postId, parent && parent.postId === postId ? parent.path : '0', body, published],
    );
    return row ?? (await this.commentByStatus(statusId))!;
  }

  async editComment(statusId: string, body: string): Promise<void> {
    await this.db.exec('UPDATE lemmy_comments SET body = $2 WHERE status_id = $1', [statusId, body]);
  }

  async commentByStatus(statusId: string): Promise<CommentRecord | undefined> {
    return this.db.one<CommentRecord>(`SELECT ${COMMENT_COLUMNS} FROM lemmy_comments WHERE status_id = $1`, [statusId], 'prepared');
  }

  async commentById(id: number): Promise<CommentRecord | undefined> {
    return this.db.one<CommentRecord>(`SELECT ${COMMENT_COLUMNS} FROM lemmy_comments WHERE id = $1`, [id], 'prepared');
  }

  /** The account's vote on a post or comment (its status): +1, -1, or 0 (none) removes it. Returns the vote replaced. */
  async vote(statusId: string, accountId: string, score: -1 | 0 | 1, uri: string | null): Promise<{ previous: -1 | 0 | 1; previousUri: string | null }> {
    return this.db.tx(async () => {
      const old = await this.db.one<{ score: -1 | 1; uri: string | null }>(
        'SELECT score, uri FROM lemmy_votes WHERE status_id = $1 AND account_id = $2 FOR UPDATE',
        [statusId, accountId],
      );
      if (score === 0) {
        if (old) await this.db.exec('DELETE FROM lemmy_votes WHERE status_id = $1 AND account_id = $2', [statusId, accountId]);
      } else {
        await this.db.exec(
          `INSERT INTO lemmy_votes (status_id, account_id, score, uri) VALUES ($1, $2, $3, $4)
           ON CONFLICT (status_id, account_id) DO UPDATE SET score = EXCLUDED.score, uri = EXCLUDED.uri, created_at = now()`,
          [statusId, accountId, score, uri],
        );
      }
      return { previous: old?.score ?? 0, previousUri: old?.uri ?? null };
    });
  }

  /** An Undo of the vote whose activity id is `uri`, by `accountId` only. True when one went. */
  /** The status a vote (by its activity's id) is on, for checking whose community it is before taking it back. */
  async voteStatusByUri(uri: string, accountId: string): Promise<string | undefined> {
    return (await this.db.one<{ status_id: string }>('SELECT status_id::text FROM lemmy_votes WHERE uri = $1 AND account_id = $2', [uri, accountId]))
      ?.status_id;
  }

  async unvoteByUri(uri: string, accountId: string): Promise<boolean> {
    return (await this.db.exec('DELETE FROM lemmy_votes WHERE uri = $1 AND account_id = $2', [uri, accountId])) > 0;
  }

  /**
   * Decays the ranks (Lemmy's scheduled refresh, migration 073): every post and comment whose time lies within the
   * last week or ahead, in batches of 1000 that skip rows a vote holds (the next refresh takes them), then the rows
   * still ranked above 0 that have aged out. Returns the posts touched.
   */
  async refreshRanks(): Promise<number> {
    let posts = await this.refreshInBatches(
      'lemmy_posts',
      'newest_comment_time',
      'hot_rank = lemmy_hot_rank(t.score, t.published), hot_rank_active = lemmy_hot_rank(t.score, t.newest_comment_time_necro)',
    );
    posts += await this.db.exec(
      `UPDATE lemmy_posts SET hot_rank = lemmy_hot_rank(score, published), hot_rank_active = lemmy_hot_rank(score, newest_comment_time_necro)
       WHERE (hot_rank > 0 OR hot_rank_active > 0) AND newest_comment_time <= now() - interval '7 days'`,
    );
    await this.refreshInBatches('lemmy_comments', 'published', 'hot_rank = lemmy_hot_rank(t.score, t.published)');
    await this.db.exec(`UPDATE lemmy_comments SET hot_rank = lemmy_hot_rank(score, published) WHERE hot_rank > 0 AND published <= now() - interval '7 days'`);
    return posts;
  }

  /** Walks the rows whose `time` is within the last week or ahead, by (time, id), one batch per statement. */
  private async refreshInBatches(table: 'lemmy_posts' | 'lemmy_comments', time: string, set: string): Promise<number> {
    let total = 0;
    // The key as text: a timestamptz has microseconds, a Date only milliseconds. The batch's ids as an array: the
    // update then reads them by primary key (joined as a set, the planner hashes the whole table for each batch).
    let after = { at: '-infinity', id: '0' };
    for (;;) {
      const r = (await this.db.one<{ n: number; at: string | null; id: string | null }>(
        `WITH batch AS (
           SELECT id FROM ${table}
           WHERE ${time} > now() - interval '7 days' AND (${time}, id) > ($1::timestamptz, $2::bigint)
           ORDER BY ${time}, id LIMIT ${RANK_BATCH} FOR UPDATE SKIP LOCKED
         ), done AS (
           UPDATE ${table} t SET ${set} WHERE t.id = ANY (ARRAY(SELECT id FROM batch)) RETURNING t.${time} AS at, t.id
         ), last AS (SELECT at, id FROM done ORDER BY at DESC, id DESC LIMIT 1)
         SELECT (SELECT count(*)::int FROM done) AS n, (SELECT at::text FROM last) AS at, (SELECT id::text FROM last) AS id`,
        [after.at, after.id],
      ))!;
      total += r.n;
      if (r.n < RANK_BATCH || r.at === null || r.id === null) return total;
      after = { at: r.at, id: r.id };
    }
  }

  private async ensure(table: string, column: string, value: string): Promise<number> {
    const found = await this.db.one<{ id: number }>(`SELECT id::int AS id FROM ${table} WHERE ${column} = $1`, [value], 'prepared');
    if (found) return found.id;
    const made = await this.db.one<{ id: number }>(
      `INSERT INTO ${table} (${column}) VALUES ($1) ON CONFLICT (${column}) DO UPDATE SET ${column} = EXCLUDED.${column} RETURNING id::int AS id`,
      [value],
    );
    return made!.id;
  }
}
