// POST /api/v3/user/login and /api/v3/user/logout. The `jwt` a Lemmy client keeps is a real Stoa access token
// (read write follow) of the adapter's built-in application (store/adapter-apps.ts): it works as a bearer token on
// every /api/v3 call and on the Mastodon API, shows under Authorized applications, and logout revokes it. Sign-in
// goes under the same throttle and refusals as the web sign-in (web/auth-pages.ts), answered with Lemmy's codes.
import { z } from 'zod';
import { decoyHash, verifyPassword } from '../../auth/password.js';
import { ApiError, Errors } from '../../errors.js';
import { json } from '../../http/respond.js';
import type { Throttle } from '../../http/throttle.js';
import { PUBLIC, route, type Route } from '../../http/types.js';
import type { Logger } from '../../log.js';
import type { AdapterAppStore } from '../../store/adapter-apps.js';
import type { AuthEventListener } from '../../store/auth-events.js';
import type { TokenStore } from '../../store/oauth-tokens.js';
import type { UserStore } from '../../store/users.js';
import { lemmyMember } from './deps.js';
import { parse } from './params.js';

export interface LemmyLoginDeps {
  readonly log: Logger;
  readonly users: UserStore;
  readonly tokens: TokenStore;
  readonly adapterApps: AdapterAppStore;
  /** The web sign-in's throttle (same keys: one budget per address and per login, whichever form is used). */
  readonly signInThrottle: Throttle;
  readonly authEvents: AuthEventListener;
  readonly maxBodyBytes: number;
}

const Login = z.object({
  username_or_email: z.string().trim().min(1).max(320),
  password: z.string().min(1).max(1024),
  totp_2fa_token: z.string().max(64).optional(),
});

export const LEMMY_SCOPES = ['read', 'write', 'follow'] as const;

export function lemmyLoginRoutes(d: LemmyLoginDeps): Route[] {
  let appId: Promise<string> | undefined;
  // Once per node; a failed attempt (the database away) is tried again on the next sign-in.
  const adapterApp = () =>
    (appId ??= d.adapterApps.lemmyApp().catch((e: unknown) => {
      appId = undefined;
      throw e;
    }));
  return [
    route({
      method: 'POST',
      path: '/api/v3/user/login',
      auth: PUBLIC,
      body: true,
      maxBodyBytes: d.maxBodyBytes,
      handler: async (req) => {
        const { username_or_email: login, password } = parse(Login, req.fields, 'incorrect_login');
        // As the sign-in page: an address already blocked is not counted against logins.
        const byIp = await d.signInThrottle.hit(`ip:${req.ip}`);
        const loginKey = `login:${login.toLowerCase()}`;
        const byLogin = byIp.allowed ? await d.signInThrottle.hit(loginKey) : await d.signInThrottle.check(loginKey);
        if (!byIp.allowed || !byLogin.allowed) {
          const wait = Math.max(byIp.retryAfterSeconds, byLogin.retryAfterSeconds);
          throw new ApiError(429, 'rate_limit_error', undefined, { 'Retry-After': String(wait) });
        }
        const user = await d.users.byLogin(login);
        const ok = await verifyPassword(password, user?.passwordHash ?? (await decoyHash()));
        if (!user || !ok) {
          d.log.info({ ip: req.ip }, 'lemmy sign-in failed');
          throw Errors.lemmy(400, 'incorrect_login');
        }
        // Stoa sends no e-mail (every address counts as confirmed), so email_not_verified never arises.
        if (user.suspended || user.disabled) throw Errors.lemmy(400, 'site_ban');
        if (!user.approved) throw Errors.lemmy(400, 'registration_application_is_pending');
        const { token } = await d.tokens.issue(await adapterApp(), user.userId, LEMMY_SCOPES);
        await d.users.recordSignIn(user.userId, req.ip);
        d.log.info({ user: user.userId }, 'signed in through the link aggregator API');
        return json(200, { jwt: token, registration_created: false, verify_email_sent: false }, { 'Cache-Control': 'no-store' });
      },
    }),
    route({
      method: 'POST',
      path: '/api/v3/user/logout',
      auth: { scopes: [], member: true, optional: true },
      body: true,
      maxBodyBytes: d.maxBodyBytes,
      handler: async (_req, who) => {
        const me = lemmyMember(who);
        // Answers once every node has dropped the token: the client's next call anywhere is refused.
        await d.authEvents.publish(
          (nonce) => d.tokens.revokeForApp(me.key, me.record.appId, nonce),
          (o) => o.kind === 'revoked' && o.notified,
        );
        return json(200, { success: true });
      },
    }),
  ];
}
