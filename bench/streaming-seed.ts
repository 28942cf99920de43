// The streaming bench's members: VIEWERS readers (the sockets are spread over them) and one poster, with per-viewer
// filtering seeded so that every filter path of the fan-out runs on each post while most sockets still receive it:
// readers who block the poster, whom the poster blocks, who mute the poster, whose content filter hides or warns
// of the post, whose filter matches nothing, who read only German or English. Posts are in English.
import { pino } from 'pino';
import { hashPassword } from '../src/auth/password.js';
import { RoleId } from '../src/auth/permissions.js';
import { Database } from '../src/store/db.js';
import { AppStore } from '../src/store/oauth-apps.js';
import { TokenStore } from '../src/store/oauth-tokens.js';
import { UserStore } from '../src/store/users.js';

export const VIEWERS = 100;
/** A word every bench post holds, which the warn and hide filters match. */
export const POST_WORD = 'fanout';

export type ViewerKind = 'blocks' | 'blocked' | 'mutes' | 'filter-hide' | 'filter-warn' | 'filter-other' | 'lang-de' | 'lang-en' | 'plain';

/** Four readers of each kind, the rest plain (68 of 100). */
const KINDS: readonly ViewerKind[] = ['blocks', 'blocked', 'mutes', 'filter-hide', 'filter-warn', 'filter-other', 'lang-de', 'lang-en'];
export const kindOf = (reader: number): ViewerKind => KINDS[Math.floor(reader / 4)] ?? 'plain';
/** Whether reader `reader`'s public stream is shown a bench post (with a payload of their own for filter-warn). */
export const receives = (reader: number): boolean => !['blocks', 'blocked', 'mutes', 'filter-hide', 'lang-de'].includes(kindOf(reader));

export interface Members {
  readonly readers: readonly string[];
  readonly poster: string;
}

export async function seedMembers(databaseUrl: string): Promise<Members & { readonly ids: readonly string[]; readonly posterId: string }> {
  const db = new Database(databaseUrl, 2, pino({ level: 'silent' }));
  try {
    const users = new UserStore(db);
    const tokens = new TokenStore(db);
    const hash = await hashPassword('bench-password-1');
    const { app } = await new AppStore(db).create({
      name: 'bench-stream',
      website: null,
      redirectUris: ['urn:ietf:wg:oauth:2.0:oob'],
      scopes: ['read', 'write'],
    });
    const member = async (name: string) => {
      const u = await users.create({ username: name, email: `${name}@bench.test`, passwordHash: hash, roleId: RoleId.user, approved: true });
      return { token: (await tokens.issue(app.id, u.userId, ['read', 'write'])).token, accountId: u.accountId, userId: u.userId };
    };
    const readers: string[] = [];
    const ids: string[] = [];
    for (let i = 0; i < VIEWERS; i++) {
      const m = await member(`reader${i}`);
      readers.push(m.token);
      ids.push(m.accountId);
      const lang = kindOf(i) === 'lang-de' ? ['de'] : kindOf(i) === 'lang-en' ? ['en'] : null;
      if (lang) await db.exec('UPDATE users SET chosen_languages = $2 WHERE id = $1', [m.userId, lang]);
    }
    const poster = await member('poster');
    return { readers, ids, poster: poster.token, posterId: poster.accountId };
  } finally {
    await db.close();
  }
}

/** The blocks, mutes and filters, made over the API of a running node (so its caches hear of them as in use). */
export async function seedRelations(base: string, m: Members & { readonly ids: readonly string[]; readonly posterId: string }): Promise<void> {
  const call = async (token: string, path: string, body: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (res.status !== 200) throw new Error(`bench seed ${path}: ${res.status} ${await res.text()}`);
  };
  const filter = (action: 'hide' | 'warn', keyword: string) => ({
    title: `bench ${action} ${keyword}`,
    context: ['public', 'home'],
    filter_action: action,
    keywords_attributes: [{ keyword }],
  });
  for (let i = 0; i < VIEWERS; i++) {
    const token = m.readers[i]!;
    const kind = kindOf(i);
    if (kind === 'blocks') await call(token, `/api/v1/accounts/${m.posterId}/block`, {});
    else if (kind === 'blocked') await call(m.poster, `/api/v1/accounts/${m.ids[i]}/block`, {});
    else if (kind === 'mutes') await call(token, `/api/v1/accounts/${m.posterId}/mute`, {});
    else if (kind === 'filter-hide') await call(token, '/api/v2/filters', filter('hide', POST_WORD));
    else if (kind === 'filter-warn') await call(token, '/api/v2/filters', filter('warn', POST_WORD));
    else if (kind === 'filter-other') await call(token, '/api/v2/filters', filter('warn', 'zebra'));
  }
}
