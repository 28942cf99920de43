// Data a scenario needs, written through the application's own stores (so the bench exercises real rows).
import { pino } from 'pino';
import { Database } from '../src/store/db.js';
import { AppStore } from '../src/store/oauth-apps.js';
import { TokenStore } from '../src/store/oauth-tokens.js';

/** A member token (scope read) for the first user (the Owner Stoa created at start-up). */
export async function seedUserToken(databaseUrl: string): Promise<string> {
  const db = new Database(databaseUrl, 1, pino({ level: 'silent' }));
  try {
    const user = await db.one<{ id: string }>('SELECT id FROM users ORDER BY id LIMIT 1');
    if (!user) throw new Error('no user to issue a token for');
    const { app } = await new AppStore(db).create({ name: 'bench', website: null, redirectUris: ['urn:ietf:wg:oauth:2.0:oob'], scopes: ['read'] });
    return (await new TokenStore(db).issue(app.id, user.id, ['read'])).token;
  } finally {
    await db.close();
  }
}

/**
 * A member who follows `following` accounts, each with `perAccount` public statuses, among as many statuses of
 * accounts they do not follow (bulk SQL: a hundred thousand rows through the stores would take minutes). Returns a
 * read token for that member. Idempotent per database: a second call reuses the seeded member.
 */
export async function seedHomeTimeline(databaseUrl: string, following = 5_000, perAccount = 20): Promise<string> {
  const db = new Database(databaseUrl, 1, pino({ level: 'silent' }));
  try {
    const user = await db.one<{ id: string; account_id: string }>('SELECT id, account_id FROM users ORDER BY id LIMIT 1');
    if (!user) throw new Error('no user to seed a home timeline for');
    const seeded = await db.one<{ n: number }>("SELECT count(*)::int AS n FROM accounts WHERE domain = 'bench-followed.example'");
    if (!seeded?.n) {
      await db.tx(async (q) => {
        for (const [domain, n] of [
          ['bench-followed.example', following],
          ['bench-other.example', following],
        ] as const) {
          await q.query(
            `INSERT INTO accounts (id, username, domain, uri, inbox_url)
             SELECT timestamp_id(now()), 'u' || i, $1, 'https://' || $1 || '/users/u' || i, 'https://' || $1 || '/users/u' || i || '/inbox'
             FROM generate_series(1, $2) AS i`,
            [domain, n],
          );
        }
        await q.query(`INSERT INTO follows (account_id, target_account_id) SELECT $1, id FROM accounts WHERE domain = 'bench-followed.example'`, [
          user.account_id,
        ]);
        // Statuses spread over the last 30 days, followed and unfollowed accounts interleaved.
        await q.query(
          `INSERT INTO statuses (id, account_id, uri, content, visibility, local, created_at)
           SELECT timestamp_id(t), id, uri || '/statuses/' || k, '<p>bench status ' || k || '</p>', 0, false, t
           FROM (SELECT a.id, a.uri, k, now() - random() * interval '30 days' AS t
                 FROM accounts a, generate_series(1, $1) AS k WHERE a.domain IN ('bench-followed.example', 'bench-other.example')) AS x`,
          [perAccount],
        );
      });
      await db.exec('ANALYZE');
    }
    const { app } = await new AppStore(db).create({ name: 'bench-home', website: null, redirectUris: ['urn:ietf:wg:oauth:2.0:oob'], scopes: ['read'] });
    return (await new TokenStore(db).issue(app.id, user.id, ['read'])).token;
  } finally {
    await db.close();
  }
}
