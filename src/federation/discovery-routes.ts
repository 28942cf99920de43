// Discovery: WebFinger (handles on LOCAL_DOMAIN, documents on BASE_URL), host-meta, and NodeInfo 2.0/2.1.
// On a split-domain installation the handle domain redirects /.well-known/webfinger and /.well-known/host-meta here.
import type { Config } from '../../config/schema.js';
import type { Request } from '../http/request.js';
import { PUBLIC, type Reply, type Route } from '../http/types.js';
import { Errors } from '../errors.js';
import type { Account, AccountStore } from '../store/accounts.js';
import type { CachedInstanceCounts } from '../store/instance-stats.js';
import { MASTODON_API_VERSION, STOA_VERSION } from '../version.js';
import type { LocalUris } from '../urls/local-uris.js';

export interface DiscoveryDeps {
  readonly config: Config;
  /** The instance's counts (shared with the instance documents, invalidated with them). */
  readonly counts: CachedInstanceCounts;
  readonly accounts: AccountStore;
  readonly uris: LocalUris;
}

const NODEINFO_SCHEMA = (v: string) => `http://nodeinfo.diaspora.software/ns/schema/${v}`;

export function discoveryRoutes(d: DiscoveryDeps): Route[] {
  const { config, uris } = d;
  const hostingDomain = new URL(config.baseUrl).host.toLowerCase();

  /** The local username a WebFinger resource names, or undefined when it names nothing of ours. */
  const usernameOf = (resource: string): string | undefined => {
    const acct = /^(?:acct:)?@?([^@/\s]+)@([^@/\s]+)$/i.exec(resource);
    if (acct) {
      const domain = acct[2]!.toLowerCase();
      return domain === config.localDomain || domain === hostingDomain ? acct[1]! : undefined;
    }
    if (resource === uris.instanceActor) return config.localDomain;
    return uris.usernameOf(resource) ?? (resource.startsWith(`${uris.base}/@`) ? resource.slice(uris.base.length + 2) : undefined);
  };

  const jrd = (a: Account): Record<string, unknown> => {
    if (a.instanceActor) {
      return {
        subject: `acct:${a.username}@${config.localDomain}`,
        aliases: [uris.instanceActor],
        links: [
          { rel: 'http://webfinger.net/rel/profile-page', type: 'text/html', href: `${config.baseUrl}/about` },
          { rel: 'self', type: 'application/activity+json', href: uris.instanceActor },
        ],
      };
    }
    return {
      subject: `acct:${a.username}@${config.localDomain}`,
      aliases: [uris.profile(a.username), uris.actor(a.username)],
      links: [
        { rel: 'http://webfinger.net/rel/profile-page', type: 'text/html', href: uris.profile(a.username) },
        { rel: 'self', type: 'application/activity+json', href: uris.actor(a.username) },
      ],
    };
  };

  const webfinger = async (req: Request): Promise<Reply> => {
    const resource = req.query['resource'];
    if (typeof resource !== 'string' || resource === '') throw Errors.badRequest('The resource parameter is required');
    const username = usernameOf(resource.trim());
    const account = username && /^[\w.:-]{1,255}$/.test(username) ? await d.accounts.byHandle(username, null) : undefined;
    if (!account || (!account.hasUser && !account.instanceActor)) throw Errors.notFound();
    return {
      status: 200,
      headers: { 'Content-Type': 'application/jrd+json; charset=utf-8', 'Cache-Control': 'max-age=259200, public', Vary: 'Accept' },
      body: JSON.stringify(jrd(account)),
    };
  };

  const template = `${config.baseUrl}/.well-known/webfinger?resource={uri}`;
  const hostMetaXml =
    `<?xml version="1.0" encoding="UTF-8"?>\n<XRD xmlns="http://docs.oasis-open.org/ns/xri/xrd-1.0">\n` +
    `  <Link rel="lrdd" template="${template}"/>\n</XRD>\n`;

  const nodeinfo = (version: '2.0' | '2.1') => async (): Promise<Reply> => {
    const c = await d.counts.get();
    const software: Record<string, string> = { name: 'stoa', version: STOA_VERSION };
    if (version === '2.1') software['homepage'] = config.baseUrl;
    const doc = {
      version,
      software,
      protocols: ['activitypub'],
      services: { inbound: [], outbound: [] },
      openRegistrations: config.registrations !== 'closed',
      usage: { users: { total: c.userCount, activeMonth: c.activeMonth, activeHalfyear: c.activeHalfyear }, localPosts: c.localPosts },
      // Clients that pick an API by NodeInfo (megalodon's detector, so Whalebird) take an unknown software.name for
      // Mastodon when `upstream` names it, as other Mastodon-compatible servers declare; software.name stays ours.
      metadata: {
        nodeName: config.instance.title,
        nodeDescription: config.instance.description,
        upstream: { name: 'mastodon', version: MASTODON_API_VERSION },
      },
    };
    return {
      status: 200,
      headers: { 'Content-Type': `application/json; profile="${NODEINFO_SCHEMA(version)}#"`, 'Cache-Control': 'max-age=1800, public' },
      body: JSON.stringify(doc),
    };
  };

  return [
    { method: 'GET', path: '/.well-known/webfinger', auth: PUBLIC, handler: webfinger },
    {
      method: 'GET',
      path: '/.well-known/host-meta',
      auth: PUBLIC,
      handler: () => ({
        status: 200,
        headers: { 'Content-Type': 'application/xrd+xml; charset=utf-8', 'Cache-Control': 'max-age=259200, public' },
        body: hostMetaXml,
      }),
    },
    {
      method: 'GET',
      path: '/.well-known/host-meta.json',
      auth: PUBLIC,
      handler: () => ({
        status: 200,
        headers: { 'Content-Type': 'application/json; charset=utf-8' },
        body: JSON.stringify({ links: [{ rel: 'lrdd', template }] }),
      }),
    },
    {
      method: 'GET',
      path: '/.well-known/nodeinfo',
      auth: PUBLIC,
      handler: () => ({
        status: 200,
        headers: { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'max-age=259200, public' },
        body: JSON.stringify({
          links: [
            { rel: NODEINFO_SCHEMA('2.0'), href: `${config.baseUrl}/nodeinfo/2.0` },
            { rel: NODEINFO_SCHEMA('2.1'), href: `${config.baseUrl}/nodeinfo/2.1` },
          ],
        }),
      }),
    },
    { method: 'GET', path: '/nodeinfo/2.0', auth: PUBLIC, handler: nodeinfo('2.0') },
    { method: 'GET', path: '/nodeinfo/2.1', auth: PUBLIC, handler: nodeinfo('2.1') },
  ];
}
