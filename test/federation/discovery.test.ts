// What other servers read before they federate with us, over real HTTP: WebFinger (members, actor and profile URLs,
// the instance actor), host-meta, NodeInfo 2.0/2.1, actor documents by content negotiation, the instance actor, the
// paged collections, and the per-member RSA keys (distinct, stable across requests and restarts).
import assert from 'node:assert/strict';
import { createPublicKey } from 'node:crypto';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { z } from 'zod';
import { hashPassword } from '../../src/auth/password.js';
import { newNonce } from '../../src/store/auth-events.js';
import { UserStore, type LocalUser } from '../../src/store/users.js';
import type { Json } from '../support/api.js';
import { startTestServer, type TestServer } from '../support/server.js';

const ENV = { BASE_URL: 'http://127.0.0.1:{port}', FEDERATION_ALLOW_PRIVATE: 'loopback' };
const AP = 'application/activity+json';
const LD = 'application/ld+json; profile="https://www.w3.org/ns/activitystreams"';
const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const NODEINFO_REL = (v: string) => `http://nodeinfo.diaspora.software/ns/schema/${v}`;

type Doc = Record<string, Json>;

async function get(url: string, accept?: string): Promise<{ status: number; headers: Headers; text: string; json: () => Doc }> {
  const res = await fetch(url, { headers: accept ? { Accept: accept } : {}, redirect: 'manual' });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: () => JSON.parse(text) as Doc };
}

/**
 * A GET on a new connection. After an in-process stop, uWS 20.30 (no app.close()) still answers the old server's idle
 * keep-alive connections (503, shutting down), and fetch would reuse one of them; a restarted process has none.
 */
function freshConnectionGet(url: string, accept: string): Promise<string> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false, headers: { Accept: accept } }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => (res.statusCode === 200 ? resolve(body) : reject(new Error(`${url}: ${res.statusCode} ${body}`))));
      })
      .on('error', reject);
  });
}

async function apDoc(url: string, accept = AP): Promise<Doc> {
  const r = await get(url, accept);
  assert.equal(r.status, 200, `${url}: ${r.text}`);
  assert.match(r.headers.get('content-type') ?? '', /^application\/activity\+json\b/);
  return r.json();
}

/** These members never sign in: one real hash serves them all. */
const PASSWORD_HASH = hashPassword('member-password');

async function createMember(s: TestServer, username: string, opts: { approved?: boolean } = {}): Promise<LocalUser> {
  return new UserStore(s.app.db).create({
    username,
    email: `${username}@example.test`,
    passwordHash: await PASSWORD_HASH,
    roleId: 0,
    approved: opts.approved ?? true,
  });
}

const webfingerUrl = (s: TestServer, resource: string) => `${s.url}/.well-known/webfinger?resource=${encodeURIComponent(resource)}`;

/** The shape NodeInfo 2.0 and 2.1 require (https://nodeinfo.diaspora.software/schema.html). */
const NodeInfoSchema = z.object({
  version: z.enum(['2.0', '2.1']),
  software: z.object({
    name: z.string().regex(/^[a-z0-9-]+$/),
    version: z.string().min(1),
    repository: z.string().url().optional(),
    homepage: z.string().url().optional(),
  }),
  protocols: z.array(z.string()).min(1),
  services: z.object({ inbound: z.array(z.string()), outbound: z.array(z.string()) }),
  openRegistrations: z.boolean(),
  usage: z.object({
    users: z.object({ total: z.number().int().min(0), activeMonth: z.number().int().min(0), activeHalfyear: z.number().int().min(0) }).partial(),
    localPosts: z.number().int().min(0).optional(),
  }),
  metadata: z.record(z.string(), z.unknown()),
});

describe('discovery and actor documents', () => {
  let s: TestServer;
  let host: string;
  let admin: LocalUser;

  before(async () => {
    s = await startTestServer(ENV);
    host = new URL(s.url).host;
    admin = (await new UserStore(s.app.db).byLogin('admin'))!;
    await s.app.federation.accounts.updateLocalProfile(admin.accountId, { displayName: 'Ada Admin', note: 'First line\nsecond <line>' }, newNonce());
  });
  after(async () => {
    await s?.stop();
  });

  describe('WebFinger', () => {
    const assertAdminJrd = (jrd: Doc) => {
      assert.equal(jrd['subject'], `acct:admin@${host}`);
      assert.ok((jrd['aliases'] as string[]).includes(`${s.url}/users/admin`));
      const self = (jrd['links'] as Doc[]).find((l) => l['rel'] === 'self');
      assert.deepEqual(self, { rel: 'self', type: AP, href: `${s.url}/users/admin` });
      const profile = (jrd['links'] as Doc[]).find((l) => l['rel'] === 'http://webfinger.net/rel/profile-page');
      assert.equal(profile?.['href'], `${s.url}/@admin`);
    };

    it('answers acct:admin@LOCAL_DOMAIN with the actor link as application/jrd+json, with CORS', async () => {
      const r = await get(webfingerUrl(s, `acct:admin@${host}`));
      assert.equal(r.status, 200);
      assert.match(r.headers.get('content-type') ?? '', /^application\/jrd\+json\b/);
      assert.equal(r.headers.get('access-control-allow-origin'), '*');
      assertAdminJrd(r.json());
    });

    it('answers the actor URL and the @-profile URL with the same subject', async () => {
      for (const resource of [`${s.url}/users/admin`, `${s.url}/@admin`]) {
        const r = await get(webfingerUrl(s, resource));
        assert.equal(r.status, 200, resource);
        assertAdminJrd(r.json());
      }
    });

    it('answers the instance actor as acct:<domain>@<domain> with a self link to /actor', async () => {
      const r = await get(webfingerUrl(s, `acct:${host}@${host}`));
      assert.equal(r.status, 200);
      const jrd = r.json();
      assert.equal(jrd['subject'], `acct:${host}@${host}`);
      assert.deepEqual(
        (jrd['links'] as Doc[]).find((l) => l['rel'] === 'self'),
        { rel: 'self', type: AP, href: `${s.url}/actor` },
      );
    });

    it('answers 404 for an unknown member and for a handle on another domain', async () => {
      for (const resource of [`acct:nobody@${host}`, 'acct:admin@elsewhere.example', `${s.url}/users/nobody`]) {
        const r = await get(webfingerUrl(s, resource));
        assert.equal(r.status, 404, resource);
        assert.equal(r.headers.get('access-control-allow-origin'), '*');
      }
    });

    it('answers 400 without a resource parameter', async () => {
      for (const url of [`${s.url}/.well-known/webfinger`, `${s.url}/.well-known/webfinger?resource=`]) {
        const r = await get(url);
        assert.equal(r.status, 400, url);
      }
    });
  });

  describe('host-meta', () => {
    const template = () => `${s.url}/.well-known/webfinger?resource={uri}`;

    it('serves XRD with the lrdd template pointing at WebFinger', async () => {
      const r = await get(`${s.url}/.well-known/host-meta`);
      assert.equal(r.status, 200);
      assert.match(r.headers.get('content-type') ?? '', /^application\/xrd\+xml\b/);
      assert.match(r.text, /<XRD xmlns="http:\/\/docs\.oasis-open\.org\/ns\/xri\/xrd-1\.0">/);
      assert.ok(r.text.includes(`<Link rel="lrdd" template="${template()}"/>`), r.text);
    });

    it('serves the same template as JSON at host-meta.json', async () => {
      const r = await get(`${s.url}/.well-known/host-meta.json`);
      assert.equal(r.status, 200);
      assert.match(r.headers.get('content-type') ?? '', /^application\/json\b/);
      assert.deepEqual(r.json(), { links: [{ rel: 'lrdd', template: template() }] });
    });
  });

  describe('NodeInfo', () => {
    it('links 2.0 and 2.1 from /.well-known/nodeinfo, and both documents have the schema shape', async () => {
      const index = await get(`${s.url}/.well-known/nodeinfo`);
      assert.equal(index.status, 200);
      assert.equal(index.headers.get('access-control-allow-origin'), '*');
      const links = index.json()['links'] as Doc[];
      assert.deepEqual(links.map((l) => l['rel']).sort(), [NODEINFO_REL('2.0'), NODEINFO_REL('2.1')]);
      for (const version of ['2.0', '2.1']) {
        const href = links.find((l) => l['rel'] === NODEINFO_REL(version))!['href'] as string;
        assert.equal(href, `${s.url}/nodeinfo/${version}`);
        const r = await get(href);
        assert.equal(r.status, 200);
        assert.equal(r.headers.get('access-control-allow-origin'), '*');
        assert.match(r.headers.get('content-type') ?? '', /^application\/json\b/);
        const doc = NodeInfoSchema.parse(r.json());
        assert.equal(doc.version, version);
        assert.equal(doc.software.name, 'stoa');
        assert.deepEqual(doc.protocols, ['activitypub']);
        assert.equal(doc.openRegistrations, false, 'REGISTRATIONS defaults to closed');
        assert.equal(typeof doc.usage.users.total, 'number');
      }
    });
    it("lets megalodon's detector (Whalebird) take the server for Mastodon, while software.name stays stoa", async () => {
      // megalodon 10's detector: the first 2.0 or 2.1 link, then software.name, then metadata.upstream.name.
      const known = ['pleroma', 'mastodon', 'misskey', 'friendica'];
      const links = (await get(`${s.url}/.well-known/nodeinfo`)).json()['links'] as Doc[];
      const link = links.find((l) => l['rel'] === NODEINFO_REL('2.0') || l['rel'] === NODEINFO_REL('2.1'))!;
      const doc = (await get(link['href'])).json();
      assert.equal(doc['software'].name, 'stoa');
      const detected = known.includes(doc['software'].name) ? doc['software'].name : doc['metadata'].upstream?.name === 'mastodon' ? 'mastodon' : 'Unknown SNS';
      assert.equal(detected, 'mastodon');
      for (const v of ['2.0', '2.1']) {
        const metadata = NodeInfoSchema.parse((await get(`${s.url}/nodeinfo/${v}`)).json()).metadata;
        assert.deepEqual(metadata['upstream'], { name: 'mastodon', version: '4.3.0' }, v);
      }
    });
  });

  describe('actor documents', () => {
    it('serves the Person for Accept application/activity+json with every field the spec names', async () => {
      const id = `${s.url}/users/admin`;
      const doc = await apDoc(id);
      assert.ok((doc['@context'] as unknown[]).includes('https://www.w3.org/ns/activitystreams'));
      assert.equal(doc['id'], id);
      assert.equal(doc['type'], 'Person');
      assert.equal(doc['inbox'], `${id}/inbox`);
      assert.equal(doc['outbox'], `${id}/outbox`);
      assert.equal(doc['followers'], `${id}/followers`);
      assert.equal(doc['following'], `${id}/following`);
      assert.deepEqual(doc['endpoints'], { sharedInbox: `${s.url}/inbox` });
      assert.equal(doc['preferredUsername'], 'admin');
      assert.equal(doc['name'], 'Ada Admin');
      assert.equal(doc['summary'], '<p>First line<br>second &#60;line&#62;</p>');
      assert.equal(doc['url'], `${s.url}/@admin`);
      assert.equal(doc['icon']['type'], 'Image');
      assert.match(doc['icon']['url'] as string, /^https?:\/\//);
      assert.equal(doc['manuallyApprovesFollowers'], false);
      assert.equal(typeof doc['discoverable'], 'boolean');
      assert.ok(!Number.isNaN(Date.parse(doc['published'] as string)), 'published is a date');
      assert.ok(Array.isArray(doc['attachment']));
      const key = doc['publicKey'] as Doc;
      assert.equal(key['id'], `${id}#main-key`);
      assert.equal(key['owner'], id);
      const pub = createPublicKey(key['publicKeyPem'] as string);
      assert.equal(pub.asymmetricKeyType, 'rsa');
      assert.equal(pub.asymmetricKeyDetails?.modulusLength, 2048);
    });

    it('serves the same document for Accept application/ld+json with the ActivityStreams profile, at /@name too', async () => {
      const plain = await apDoc(`${s.url}/users/admin`);
      assert.deepEqual(await apDoc(`${s.url}/users/admin`, LD), plain);
      assert.deepEqual(await apDoc(`${s.url}/@admin`, LD), plain);
      assert.deepEqual(await apDoc(`${s.url}/@admin`, AP), plain);
    });

    it('gives a browser the HTML profile page instead', async () => {
      for (const path of ['/users/admin', '/@admin']) {
        const r = await get(s.url + path, BROWSER);
        assert.equal(r.status, 200, path);
        assert.match(r.headers.get('content-type') ?? '', /^text\/html\b/);
        assert.ok(r.text.includes('Ada Admin'), path);
        assert.ok(r.text.includes(`@admin@${host}`), path);
      }
    });

    it('answers 404 for an unknown member, as a document and as a page', async () => {
      for (const accept of [AP, LD, BROWSER]) {
        assert.equal((await get(`${s.url}/users/nobody`, accept)).status, 404, accept);
        assert.equal((await get(`${s.url}/@nobody`, accept)).status, 404, accept);
      }
    });

    it('serves the instance actor at /actor as a Service with its own key', async () => {
      const doc = await apDoc(`${s.url}/actor`);
      const person = await apDoc(`${s.url}/users/admin`);
      assert.equal(doc['id'], `${s.url}/actor`);
      assert.equal(doc['type'], 'Service');
      assert.equal(doc['preferredUsername'], host);
      assert.equal(doc['inbox'], `${s.url}/actor/inbox`);
      assert.deepEqual(doc['endpoints'], { sharedInbox: `${s.url}/inbox` });
      const key = doc['publicKey'] as Doc;
      assert.equal(key['id'], `${s.url}/actor#main-key`);
      assert.equal(key['owner'], `${s.url}/actor`);
      const pub = createPublicKey(key['publicKeyPem'] as string);
      assert.equal(pub.asymmetricKeyType, 'rsa');
      assert.equal(pub.asymmetricKeyDetails?.modulusLength, 2048);
      assert.notEqual(key['publicKeyPem'], person['publicKey']['publicKeyPem']);
      const outbox = await apDoc(doc['outbox'] as string);
      assert.equal(outbox['type'], 'OrderedCollection');
    });

    it('gives every member a distinct key, the same on every request', async () => {
      await createMember(s, 'bea');
      await createMember(s, 'cyd');
      const pems = [];
      for (const name of ['admin', 'bea', 'cyd']) {
        const first = (await apDoc(`${s.url}/users/${name}`))['publicKey']['publicKeyPem'] as string;
        const again = (await apDoc(`${s.url}/users/${name}`))['publicKey']['publicKeyPem'] as string;
        assert.equal(again, first, `${name}'s key is stable`);
        assert.equal(createPublicKey(first).asymmetricKeyDetails?.modulusLength, 2048);
        pems.push(first);
      }
      pems.push((await apDoc(`${s.url}/actor`))['publicKey']['publicKeyPem'] as string);
      assert.equal(new Set(pems).size, pems.length, 'no two actors share a key');
    });
  });

  describe('collections', () => {
    it('serves the outbox as an OrderedCollection whose first page is an OrderedCollectionPage', async () => {
      const id = `${s.url}/users/admin/outbox`;
      const outbox = await apDoc(id);
      assert.equal(outbox['id'], id);
      assert.equal(outbox['type'], 'OrderedCollection');
      assert.equal(outbox['totalItems'], 0);
      assert.equal(typeof outbox['first'], 'string');
      const first = await apDoc(outbox['first'] as string);
      assert.equal(first['type'], 'OrderedCollectionPage');
      assert.equal(first['partOf'], id);
      assert.deepEqual(first['orderedItems'], []);
      assert.equal(first['next'], undefined);
    });

    it('pages followers 12 at a time with partOf, next and prev, listing every follower once', async () => {
      const follows = s.app.federation.follows;
      const names = Array.from({ length: 13 }, (_, i) => `fan${String(i).padStart(2, '0')}`);
      for (const name of names) await follows.follow((await createMember(s, name)).accountId, admin.accountId, null);

      const id = `${s.url}/users/admin/followers`;
      const collection = await apDoc(id);
      assert.equal(collection['id'], id);
      assert.equal(collection['type'], 'OrderedCollection');
      assert.equal(collection['totalItems'], 13);
      assert.equal(collection['first'], `${id}?page=1`);

      const page1 = await apDoc(collection['first'] as string);
      assert.equal(page1['type'], 'OrderedCollectionPage');
      assert.equal(page1['id'], `${id}?page=1`);
      assert.equal(page1['partOf'], id);
      assert.equal(page1['totalItems'], 13);
      assert.equal((page1['orderedItems'] as string[]).length, 12);
      assert.equal(page1['next'], `${id}?page=2`);
      assert.equal(page1['prev'], undefined);

      const page2 = await apDoc(page1['next'] as string);
      assert.equal(page2['type'], 'OrderedCollectionPage');
      assert.equal(page2['partOf'], id);
      assert.equal((page2['orderedItems'] as string[]).length, 1);
      assert.equal(page2['next'], undefined);
      assert.equal(page2['prev'], `${id}?page=1`);

      const listed = [...(page1['orderedItems'] as string[]), ...(page2['orderedItems'] as string[])];
      assert.deepEqual([...listed].sort(), names.map((n) => `${s.url}/users/${n}`).sort());
    });

    it("serves a member's following collection and pages the same way", async () => {
      const follows = s.app.federation.follows;
      const fay = await createMember(s, 'fay');
      await follows.follow(fay.accountId, admin.accountId, null);
      const id = `${s.url}/users/fay/following`;
      const collection = await apDoc(id);
      assert.equal(collection['type'], 'OrderedCollection');
      assert.equal(collection['totalItems'], 1);
      const page = await apDoc(collection['first'] as string);
      assert.equal(page['type'], 'OrderedCollectionPage');
      assert.equal(page['partOf'], id);
      assert.deepEqual(page['orderedItems'], [`${s.url}/users/admin`]);
      assert.equal(page['next'], undefined);
      assert.equal(page['prev'], undefined);
    });

    it('answers 400 for a page number that is not a positive integer, and 404 for an unknown member', async () => {
      for (const page of ['0', '-1', 'x']) assert.equal((await get(`${s.url}/users/admin/followers?page=${page}`, AP)).status, 400, page);
      for (const c of ['followers', 'following', 'outbox']) assert.equal((await get(`${s.url}/users/nobody/${c}`, AP)).status, 404, c);
    });
  });

  it('keeps every key across a restart on the same database', async () => {
    const keys = new Map<string, string>();
    for (const path of ['/users/admin', '/actor']) keys.set(path, (await apDoc(s.url + path))['publicKey']['publicKeyPem'] as string);
    // Same address, as an operator's restart would be.
    const { port } = new URL(s.url);
    await s.stop();
    s = await startTestServer({ ...ENV, PORT: port, BASE_URL: `http://127.0.0.1:${port}` }, s.databaseUrl);
    for (const [path, pem] of keys) {
      const doc = JSON.parse(await freshConnectionGet(s.url + path, AP)) as Doc;
      assert.equal(doc['publicKey']['publicKeyPem'], pem, path);
    }
  });
});

describe('NodeInfo usage and registrations', () => {
  let s: TestServer;
  before(async () => {
    // Counted on every request: by default NodeInfo's counts are kept a minute (INSTANCE_STATS_MAX_AGE_MS).
    s = await startTestServer({ ...ENV, REGISTRATIONS: 'open', INSTANCE_STATS_MAX_AGE_MS: '0' });
  });
  after(async () => {
    await s?.stop();
  });

  const nodeinfo = async (version: string) => NodeInfoSchema.parse((await get(`${s.url}/nodeinfo/${version}`)).json());

  it('reports open registrations when REGISTRATIONS is open', async () => {
    for (const v of ['2.0', '2.1']) assert.equal((await nodeinfo(v)).openRegistrations, true);
  });

  it('counts the members who can use the server: approved and not disabled', async () => {
    for (const v of ['2.0', '2.1']) assert.equal((await nodeinfo(v)).usage.users.total, 1, 'only the first admin');
    await createMember(s, 'dee');
    await createMember(s, 'eli');
    await createMember(s, 'pending', { approved: false });
    const gone = await createMember(s, 'gone');
    await new UserStore(s.app.db).setDisabled(gone.userId, true);
    for (const v of ['2.0', '2.1']) assert.equal((await nodeinfo(v)).usage.users.total, 3, v);
  });
});
