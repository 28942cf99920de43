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
