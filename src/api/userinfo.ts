// GET and POST /oauth/userinfo (Mastodon 4.4, OAuth::UserinfoController): OpenID Connect's UserInfo endpoint, which
// the specification has answer both methods. A token with the `profile` scope (only that one: Doorkeeper's
// `doorkeeper_authorize! :profile`, which `read` does not cover) and a user behind it (require_user!: an app's own
// token is 422). The claims are OAuthUserinfoSerializer's: the issuer, the actor's URI as `sub` (stable and global,
// as Mastodon chose), the display and user names, the profile page and the original avatar.
import type { Config } from '../../config/schema.js';
import { json } from '../http/respond.js';
import { route, type Route } from '../http/types.js';
import type { AccountStore } from '../store/accounts.js';
import type { AccountViews } from '../views/account-views.js';
import { memberAccount } from './callers.js';

export interface UserinfoDeps {
  readonly config: Config;
  readonly accounts: AccountStore;
  readonly views: AccountViews;
}

export function userinfoRoutes(d: UserinfoDeps): Route[] {
  return (['GET', 'POST'] as const).map((method) =>
    route({
      method,
      path: '/oauth/userinfo',
      auth: { scopes: ['profile'], member: true },
      handler: async (_req, who) => {
        const a = await d.views.one(await memberAccount(d.accounts, who));
        return json(200, {
          iss: `${d.config.baseUrl}/`,
          sub: a.uri,
          name: a.display_name,
          preferred_username: a.username,
          profile: a.url,
          picture: a.avatar,
        });
      },
    }),
  );
}
