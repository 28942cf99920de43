// POST /api/v1/apps (registration, no authentication) and GET /api/v1/apps/verify_credentials (any valid token).
import { z } from 'zod';
import { applicationEntity, credentialApplicationEntity } from '../entities/application.js';
import { Errors } from '../errors.js';
import { json } from '../http/respond.js';
import { PUBLIC, route, type Route } from '../http/types.js';
import { parseRedirectUris } from '../oauth/redirect-uris.js';
import { splitScopes, unknownScope } from '../oauth/scopes.js';
import type { OAuthDeps } from '../http/oauth-deps.js';

const Registration = z.object({
  client_name: z.string({ error: "Name can't be blank" }).trim().min(1, "Name can't be blank").max(60, 'Name is too long (maximum is 60 characters)'),
  redirect_uris: z.union([z.string(), z.array(z.string()).max(10, 'Redirect URI lists at most 10 URIs')], { error: "Redirect URI can't be blank" }),
  scopes: z.string({ error: 'Scopes must be a space-separated string' }).max(2000).optional(),
  website: z.string({ error: 'Website must be a string' }).trim().max(2000, 'Website is too long (maximum is 2000 characters)').optional().nullable(),
});

function validWebsite(w: string): boolean {
  try {
    const u = new URL(w);
    return u.protocol === 'https:' || u.protocol === 'http:';
  } catch {
    return false;
  }
}

export function appRoutes(d: OAuthDeps): Route[] {
  return [
    {
      method: 'POST',
      path: '/api/v1/apps',
      auth: PUBLIC,
      body: true,
      handler: async (req) => {
        const parsed = Registration.safeParse(req.fields);
        if (!parsed.success) throw Errors.validation(parsed.error.issues[0]!.message);
        const f = parsed.data;
        const uris = parseRedirectUris(f.redirect_uris);
        if ('problem' in uris) throw Errors.validation(uris.problem);
        const scopes = splitScopes(f.scopes ?? 'read');
        if (scopes.length === 0) scopes.push('read');
        const unknown = unknownScope(scopes);
        if (unknown !== undefined) throw Errors.validation(`Scopes contains an unknown scope: ${unknown.slice(0, 100)}`);
        const website = f.website ? f.website : null;
        if (website !== null && !validWebsite(website)) throw Errors.validation('Website must be an http or https URL');
        const throttled = await d.appRegistrationThrottle.hit(req.ip);
        if (!throttled.allowed) throw Errors.tooManyRequests(throttled.retryAfterSeconds);
        const { app, clientSecret } = await d.apps.create({ name: f.client_name, website, redirectUris: uris.uris, scopes });
        d.log.info({ app: app.id }, 'application registered');
        return json(200, credentialApplicationEntity(app, clientSecret, d.vapidKey));
      },
    },
    route({
      method: 'GET',
      path: '/api/v1/apps/verify_credentials',
      auth: { scopes: [] },
      handler: async (_req, who) => {
        const app = await d.apps.byId(who.record.appId);
        if (!app) throw Errors.unauthorized();
        return json(200, applicationEntity(app, d.vapidKey));
      },
    }),
  ];
}
