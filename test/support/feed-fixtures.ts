// Accounts and statuses written straight into the database, for the materialised feeds' tests (home-feed, list-feed):
// what the triggers see, without the API in between.
import type { Database } from '../../src/store/db.js';
import type { PageQuery } from '../../src/store/paging.js';

export interface PostOpts {
  visibility?: number;
  history?: boolean;
  reblogOf?: string;
  language?: string | null;
  replyTo?: { id: string; author: string };
  /** Back-dated (an old post arriving late): its id is made from this time. */
  at?: Date;
}

export function feedFixtures(db: Database) {
  let serial = 0;
  return {
    /** A local member (with a user) or a remote account. */
    async account(local: boolean): Promise<string> {
      const name = `u${++serial}`;
      const id = (await db.one<{ id: string }>('INSERT INTO accounts (username, domain, uri) VALUES ($1, $2, $3) RETURNING id::text', [
        name,
        local ? null : 'remote.example',
        local ? null : `https://remote.example/${name}`,
      ]))!.id;
      if (local) await db.exec(`INSERT INTO users (account_id, email, password_hash) VALUES ($1, $2, '!')`, [id, `${name}@local.example`]);
      return id;
    },
    async post(author: string, o: PostOpts = {}): Promise<string> {
      const at = o.at ?? new Date();
      return (await db.one<{ id: string }>(
        `INSERT INTO statuses (id, account_id, content, visibility, local, history, reblog_of_id, language, in_reply_to_id, in_reply_to_account_id, created_at)
         VALUES (timestamp_id($8), $1, '', $2, false, $3, $4, $5, $6, $7, $8) RETURNING id::text`,
        [author, o.visibility ?? 0, o.history ?? false, o.reblogOf ?? null, o.language ?? null, o.replyTo?.id ?? null, o.replyTo?.author ?? null, at],
      ))!.id;
    },
  };
}

/** A repeatable stream of random numbers and picks (the same seed, the same test). */
export function seeded(seed: number) {
  let state = seed;
  const rnd = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
  return { rnd, pick: <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]! };
}

/**
 * Every page of a feed, newest first, through `compare` (which checks a page and returns its ids), with a since_id and
 * a min_id page at each page's oldest status.
 */
export async function walkPages(compare: (page: PageQuery) => Promise<string[]>, limit: number): Promise<void> {
  let page: PageQuery = { limit };
  for (let n = 0; n < 25; n++) {
    const got = await compare(page);
    if (got.length > 2) {
      await compare({ limit: 5, sinceId: got[got.length - 1]! });
      await compare({ limit: 5, minId: got[got.length - 1]! });
    }
    if (got.length < page.limit) break;
    page = { limit: page.limit, maxId: got[got.length - 1]! };
  }
}
