// Local members for API tests, created directly in the database with tokens issued for one registered app: signing
// in through the pages is throttled (10 attempts per 5 minutes per address), too few for a file's worth of members.
import { hashPassword } from '../../src/auth/password.js';
import { RoleId, type RoleName } from '../../src/auth/permissions.js';
import { TokenStore } from '../../src/store/oauth-tokens.js';
import { UserStore } from '../../src/store/users.js';
import { registerApp } from './oauth.js';
import type { TestServer } from './server.js';

export interface LocalMembers {
  /** Account ids by username. */
  readonly id: Record<string, string>;
  /** Tokens with read write follow, by username. */
  readonly token: Record<string, string>;
  /** Another token for a member, with only these scopes. */
  tokenFor(name: string, scopes: readonly string[]): Promise<string>;
}

/** Members with the ordinary role, or the role named in `roles` (`{ mod: 'moderator' }`). */
export async function createMembers(s: TestServer, names: readonly string[], roles: Readonly<Record<string, RoleName>> = {}): Promise<LocalMembers> {
  const users = new UserStore(s.app.db);
  const tokens = new TokenStore(s.app.db);
  const hash = await hashPassword('member-password-1');
  const app = await registerApp(s.url, { scopes: 'read write follow' });
  const id: Record<string, string> = {};
  const token: Record<string, string> = {};
  const userId: Record<string, string> = {};
  for (const name of names) {
    const user = await users.create({
      username: name,
      email: `${name}@example.test`,
      passwordHash: hash,
      roleId: RoleId[roles[name] ?? 'user'],
      approved: true,
    });
    id[name] = user.accountId;
    userId[name] = user.userId;
    token[name] = (await tokens.issue(app.id, user.userId, ['read', 'write', 'follow'])).token;
  }
  return { id, token, tokenFor: async (name, scopes) => (await tokens.issue(app.id, userId[name]!, [...scopes])).token };
}
