// Accounts: the member's own (verify_credentials; profile.ts edits it), any account by id, and lookup by handle
// (a member's lookup of an unknown remote handle resolves it over WebFinger).
// Hot: verify_credentials keeps its serialised entity on the cached token, dropped with it when the member changes.
import { Errors } from '../errors.js';
import { FetchError } from '../federation/fetch-errors.js';
import { json, jsonText } from '../http/respond.js';
import { route, type MemberPrincipal, type Route } from '../http/types.js';
import type { Account } from '../store/accounts.js';
import type { AccountApiDeps } from './deps.js';
import { idList } from './params.js';

/** Mastodon's DEFAULT_ACCOUNTS_LIMIT, the most `GET /api/v1/accounts?id[]=` takes. */
const MAX_IDS = 40;

const HANDLE = /^@?([A-Za-z0-9_.-]{1,255})(?:@([A-Za-z0-9.-]{1,253}(?::\d{1,5})?))?$/;

export function accountRoutes(d: AccountApiDeps): Route[] {
  const hostingDomain = new URL(d.config.baseUrl).host.toLowerCase();
  // The cached entity is dropped with the token whenever the member's profile, follows or posts change.
  const reply = (t: MemberPrincipal) => {
    if (t.credentialAccountJson !== undefined) return jsonText(200, t.credentialAccountJson);
    return d.views.credential(t.record.user).then((entity) => jsonText(200, (t.credentialAccountJson = JSON.stringify(entity))));
  };

  const visible = (a: Account | undefined): Account => {
    if (!a || a.deletedAt || (a.domain === null && !a.hasUser)) throw Errors.notFound();
    return a;
  };

  return [
    route({
      method: 'GET',
      path: '/api/v1/accounts/verify_credentials',
      auth: { scopes: ['read:accounts', 'profile'], member: true },
      handler: (_req, who) => reply(who),
    }),
    // Public routes accept no token; a token that is sent must be valid.
    route({
      method: 'GET',
      path: '/api/v1/accounts/lookup',
      auth: { scopes: ['read:accounts'], optional: true },
      handler: async (req, who) => {
        const acct = req.query['acct'];
        const m = typeof acct === 'string' ? HANDLE.exec(acct.trim()) : null;
        if (!m) throw Errors.notFound();
        const [, username, rawDomain] = m;
        const domain = rawDomain?.toLowerCase();
        if (!domain || domain === d.config.localDomain || domain === hostingDomain) {
          return json(200, await d.views.one(visible(await d.accounts.byHandle(username!, null))));
        }
        const known = await d.accounts.byHandle(username!, domain);
        if (known) return json(200, await d.views.one(visible(known)));
        // Only members make the server fetch unknown remote accounts (an anonymous lookup could be used to make
        // us send requests anywhere).
        if (!who?.record.user) throw Errors.notFound();
        try {
          return json(200, await d.views.one(visible(await d.remote.byHandle(username!, domain))));
        } catch (e) {
          if (e instanceof FetchError) {
            d.log.info({ acct, reason: e.reason, kind: e.kind }, 'remote account lookup failed');
            throw Errors.notFound();
          }
          throw e;
        }
      },
    }),
    route({
      // Several accounts at once (Mastodon 4.3): those that exist, in the order asked.
      method: 'GET',
      path: '/api/v1/accounts',
      auth: { scopes: ['read:accounts'], optional: true },
      handler: async (req) => {
        const ids = idList(req.query);
        if (ids.length > MAX_IDS) throw Errors.validation(`At most ${MAX_IDS} accounts can be asked for at once`);
        const byId = new Map((await d.accounts.byIds(ids)).map((a) => [a.id, a]));
        const shown = ids.map((id) => byId.get(id)).filter((a): a is Account => !!a && !a.deletedAt && (a.domain !== null || a.hasUser));
        return json(200, await d.views.many(shown));
      },
    }),
    route({
      method: 'GET',
      path: '/api/v1/accounts/:id',
      auth: { scopes: ['read:accounts'], optional: true },
      handler: async (req) => json(200, await d.views.one(visible(await d.accounts.byId(req.params['id']!)))),
    }),
  ];
}
