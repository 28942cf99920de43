// Routes Mastodon keeps for services this server does not run, answered as Mastodon answers when they are absent, so
// that clients meet a known answer instead of a route miss: translation (no translation service is configured, which
// the instance document says with `configuration.translation.enabled: false`: Mastodon's 404), annual reports (none
// are generated: an empty list, and 404 for a year), async refreshes (none are ever started: 404) and identity
// proofs (Keybase's, retired by Mastodon in 3.5: always an empty list).
import { Errors } from '../errors.js';
import { json } from '../http/respond.js';
import { route, type Route } from '../http/types.js';
import type { AccountStore } from '../store/accounts.js';

export interface AbsentServiceDeps {
  readonly accounts: AccountStore;
}

const NO_ANNUAL_REPORTS = { annual_reports: [], accounts: [], statuses: [] } as const;

export function absentServiceRoutes(d: AbsentServiceDeps): Route[] {
  return [
    route({
      // Mastodon looks the status up (404 when the caller may not read it), then meets NotConfiguredError: 404
      // either way, so no lookup is needed for the same answer.
      method: 'POST',
      path: '/api/v1/statuses/:id/translate',
      auth: { scopes: ['read:statuses'], member: true },
      body: true,
      handler: async () => {
        throw Errors.notFound();
      },
    }),
    route({
      method: 'GET',
      path: '/api/v1/annual_reports',
      auth: { scopes: ['read:accounts'], member: true },
      handler: async () => json(200, NO_ANNUAL_REPORTS),
    }),
    route({
      method: 'GET',
      path: '/api/v1/annual_reports/:year',
      // Mastodon asks write:accounts of everything but the list.
      auth: { scopes: ['write:accounts'], member: true },
      handler: async () => {
        throw Errors.notFound();
      },
    }),
    route({
      method: 'POST',
      path: '/api/v1/annual_reports/:year/read',
      auth: { scopes: ['write:accounts'], member: true },
      body: true,
      handler: async () => {
        throw Errors.notFound();
      },
    }),
    route({
      method: 'GET',
      path: '/api/v1_alpha/async_refreshes/:id',
      auth: { scopes: ['read'], member: true },
      handler: async () => {
        throw Errors.notFound();
      },
    }),
    route({
      method: 'GET',
      path: '/api/v1/accounts/:id/identity_proofs',
      // Mastodon requires a member and no particular scope.
      auth: { scopes: [], member: true },
      handler: async (req) => {
        const a = await d.accounts.byId(req.params['id']!);
        if (!a || a.deletedAt || (a.domain === null && !a.hasUser)) throw Errors.notFound();
        return json(200, []);
      },
    }),
  ];
}
