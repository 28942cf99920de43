// GET /api/v1/accounts/verify_credentials: the member's CredentialAccount (scope read:accounts or profile).
// Hot: the serialised entity is kept on the cached token and dropped with it when the member changes.
import type { Config } from '../../config/schema.js';
import { credentialAccountEntity } from '../entities/account.js';
import { jsonText } from '../http/respond.js';
import type { Route } from '../http/types.js';
import type { BearerAuth, Requirement } from '../oauth/bearer.js';
import type { CachedToken } from '../oauth/token-cache.js';

const VERIFY: Requirement = { scopes: ['read:accounts', 'profile'], user: true };

export function accountRoutes(bearer: BearerAuth, config: Config) {
  const reply = (t: CachedToken) => jsonText(200, (t.credentialAccountJson ??= JSON.stringify(credentialAccountEntity(t.record.user!, config))));
  const routes: Route[] = [
    {
      method: 'GET',
      path: '/api/v1/accounts/verify_credentials',
      handler: (req) => {
        const t = bearer.authenticate(req, VERIFY);
        return t instanceof Promise ? t.then(reply) : reply(t);
      },
    },
  ];
  return routes;
}
