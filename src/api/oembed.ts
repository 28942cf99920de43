// GET /api/oembed?url=: a local public or unlisted status as oEmbed (Mastodon's Api::OEmbedController), for sites
// that embed a shared link; anyone may ask. Any other URL, or a followers-only or direct status, is a 404 as
// Mastodon's StatusFinder and require_public_status! answer. `url` is outside input: urls/local-uris.ts statusOfUrl
// reads it, and nothing else of it is used.
import type { Config } from '../../config/schema.js';
import { OEMBED_DEFAULT_WIDTH, oembedEntity } from '../entities/oembed.js';
import { Errors } from '../errors.js';
import { json } from '../http/respond.js';
import { PUBLIC, type Route } from '../http/types.js';
import type { AccountStore } from '../store/accounts.js';
import type { StatusStore } from '../store/statuses.js';
import type { LocalUris } from '../urls/local-uris.js';
import { openLocalStatus } from '../federation/open-statuses.js';

export interface OEmbedDeps {
  readonly config: Config;
  readonly accounts: AccountStore;
  readonly statuses: StatusStore;
  readonly uris: LocalUris;
}

/** maxwidth and maxheight as Mastodon reads them: a positive integer, else the default (none for the height). */
function dimension(v: unknown): number | null {
  return typeof v === 'string' && /^\d{1,5}$/.test(v) && Number(v) > 0 ? Number(v) : null;
}

export function oembedRoutes(d: OEmbedDeps): Route[] {
  return [
    {
      method: 'GET',
      path: '/api/oembed',
      auth: PUBLIC,
      handler: async (req) => {
        const url = req.query['url'];
        const named = typeof url === 'string' ? d.uris.statusOfUrl(url) : undefined;
        const open = named && (await openLocalStatus(d, named.username, named.id));
        if (!open) throw Errors.notFound();
        const { status: s, author } = open;
        return json(
          200,
          oembedEntity({
            username: author.username,
            displayName: author.displayName,
            statusUrl: d.uris.statusUrl(author.username, s.id),
            profileUrl: d.uris.profile(author.username),
            localDomain: d.config.localDomain,
            rootUrl: `${d.config.baseUrl}/`,
            instanceTitle: d.config.instance.title,
            width: dimension(req.query['maxwidth']) ?? OEMBED_DEFAULT_WIDTH,
            height: dimension(req.query['maxheight']),
          }),
        );
      },
    },
  ];
}
