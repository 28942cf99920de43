// Link-aggregator data written through the real stores and SQL for the /api/v3 tests: remote Group accounts filed as
// communities, remote authors, their statuses filed as posts and comments (LinkAggregatorStore.recordPost /
// recordComment, whose triggers keep counts and ranks), votes by throwaway remote voters. What federation would store.
import type { Database } from '../../src/store/db.js';
import { type CommentRecord, LinkAggregatorStore, type LinkPostRecord } from '../../src/store/link-aggregator.js';

export const HOUR = 3_600_000;

export interface SeedPost {
  readonly name?: string;
  readonly url?: string | null;
  readonly body?: string;
  readonly at?: Date;
  readonly nsfw?: boolean;
  readonly history?: boolean;
  readonly visibility?: number;
  /** Net votes: this many upvotes (positive) or downvotes (negative) by fresh voters. */
  readonly score?: number;
}

export function lemmySeed(db: Database) {
  const links = new LinkAggregatorStore(db);
  let serial = 0;
  const account = async (name: string, host: string | null, type = 'Person'): Promise<string> =>
    (await db.one<{ id: string }>('INSERT INTO accounts (username, domain, uri, actor_type, display_name) VALUES ($1, $2, $3, $4, $5) RETURNING id::text', [
      name,
      host,
      host === null ? null : `https://${host}/${type === 'Group' ? 'c' : 'u'}/${name}`,
      type,
      `${name} shown`,
    ]))!.id;
  const status = async (author: string, at: Date, o: { history?: boolean; visibility?: number; replyTo?: string; local?: boolean } = {}) =>
    (await db.one<{ id: string }>(
      `INSERT INTO statuses (id, account_id, content, visibility, local, history, in_reply_to_id, created_at, uri)
       VALUES (timestamp_id($4), $1, '<p>x</p>', $2, $6, $3, $5, $4, CASE WHEN $6 THEN NULL ELSE 'https://remote.test/s/' || $7 END) RETURNING id::text`,
      [author, o.visibility ?? 0, o.history ?? false, at, o.replyTo ?? null, o.local ?? false, String(++serial)],
    ))!.id;
  const voters: string[] = [];
  const voter = async (i: number): Promise<string> => {
    while (voters.length <= i) voters.push(await account(`voter${voters.length}`, 'votes.test'));
    return voters[i]!;
  };
  return {
    links,
    account,
    /** A remote Group and its community id. */
    async community(name: string, host = 'lemmy.test'): Promise<{ id: number; accountId: string }> {
      const accountId = await account(name, host, 'Group');
      return { id: await links.communityId(accountId), accountId };
    },
    async author(name: string, host: string | null = 'lemmy.test'): Promise<string> {
      return account(name, host);
    },
    async post(author: string, communityId: number, o: SeedPost = {}): Promise<LinkPostRecord> {
      const at = o.at ?? new Date(Date.now() - HOUR);
      const statusId = await status(author, at, { history: o.history ?? false, visibility: o.visibility ?? 0 });
      const p = await links.recordPost({
        statusId,
        communityId,
        name: o.name ?? `post ${serial}`,
        url: o.url ?? null,
        body: o.body ?? '',
        nsfw: o.nsfw ?? false,
        published: at,
      });
      await this.votes(statusId, o.score ?? 0);
      return p;
    },
    async comment(author: string, post: LinkPostRecord, parent: CommentRecord | null, at: Date, body = 'a comment'): Promise<CommentRecord> {
      const replyTo = parent?.statusId ?? post.statusId;
      return links.recordComment(await status(author, at, { replyTo }), post.id, parent, body, at);
    },
    /** |score| fresh voters vote the status up (score > 0) or down. */
    async votes(statusId: string, score: number): Promise<void> {
      for (let i = 0; i < Math.abs(score); i++) await links.vote(statusId, await voter(i), score > 0 ? 1 : -1, null);
    },
  };
}
