// GET /api/v3/site: the site view Lemmy clients read first (views/lemmy/site-view.ts); anonymous or signed in, when
// it carries my_user.
import { json } from '../../http/respond.js';
import { route, type Route } from '../../http/types.js';
import type { LemmySiteDeps } from './deps.js';

export function lemmySiteRoutes(d: Pick<LemmySiteDeps, 'siteView'>): Route[] {
  return [
    route({
      method: 'GET',
      path: '/api/v3/site',
      auth: { scopes: ['read'], optional: true },
      handler: async (_req, who) => json(200, await d.siteView.response(who?.record.user ?? null)),
    }),
  ];
}
