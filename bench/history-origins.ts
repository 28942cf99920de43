// Loopback origins for the remote-history bench: `count` listening ports of one node:http handler, each port an
// origin of its own (Stoa keys origins by host:port). Any /users/<name> is a Person whose outbox's first page holds
// 20 public Notes (each a Create with an inline object, attributed to the actor, on its origin) and names a next
// page: an initial fetch reads the outbox and that page, imports 20 posts and ends `partial`. Documents are made per
// request, so any number of actors on any origin cost nothing to set up. (test/support/history-origin.ts is the
// tests' origin, with one port and the pitfalls; the bench needs many ports and nothing else.)
import http from 'node:http';
import type { AddressInfo } from 'node:net';

const AP_JSON = 'application/activity+json';
const PUBLIC = 'https://www.w3.org/ns/activitystreams#Public';
export const ITEMS_PER_PAGE = 20;

export interface BenchOrigin {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** `127.0.0.1:<port>`: the origin key (and account domain) Stoa keeps. */
  readonly host: string;
}

export interface BenchOrigins {
  readonly origins: readonly BenchOrigin[];
  /** Requests answered so far, all ports. */
  requests(): number;
  close(): Promise<void>;
}

function page(actor: string, n: number): unknown {
  const outbox = `${actor}/outbox`;
  const items = Array.from({ length: ITEMS_PER_PAGE }, (_, i) => {
    const k = (n - 1) * ITEMS_PER_PAGE + i + 1;
    const published = new Date(Date.UTC(2024, 0, 1) - k * 3_600_000).toISOString();
    return {
      id: `${actor}/statuses/${k}/activity`,
      type: 'Create',
      actor,
      published,
      to: [PUBLIC],
      cc: [`${actor}/followers`],
      object: {
        id: `${actor}/statuses/${k}`,
        type: 'Note',
        attributedTo: actor,
        to: [PUBLIC],
        cc: [`${actor}/followers`],
        content: `<p>older post number ${k}, with a few words so that it is no empty shell</p>`,
        published,
        url: `${actor}/statuses/${k}`,
        tag: [{ type: 'Hashtag', name: '#bench', href: `${actor.slice(0, actor.indexOf('/users/'))}/tags/bench` }],
      },
    };
  });
  return {
    '@context': 'https://www.w3.org/ns/activitystreams',
    id: `${outbox}?page=${n}`,
    type: 'OrderedCollectionPage',
    partOf: outbox,
    next: `${outbox}?page=${n + 1}`,
    orderedItems: items,
  };
}

function document(base: string, path: string): unknown {
  const m = /^\/users\/([a-z0-9_-]+)(\/outbox)?(?:\?page=(\d+))?$/.exec(path);
  if (!m) return undefined;
  const actor = `${base}/users/${m[1]}`;
  if (!m[2]) {
    return {
      '@context': 'https://www.w3.org/ns/activitystreams',
      id: actor,
      type: 'Person',
      preferredUsername: m[1],
      inbox: `${actor}/inbox`,
      followers: `${actor}/followers`,
      outbox: `${actor}/outbox`,
    };
  }
  if (m[3]) return page(actor, Number(m[3]));
  return {
    '@context': 'https://www.w3.org/ns/activitystreams',
    id: `${actor}/outbox`,
    type: 'OrderedCollection',
    totalItems: 1000,
    first: `${actor}/outbox?page=1`,
  };
}

export async function startBenchOrigins(count: number): Promise<BenchOrigins> {
  let requests = 0;
  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    requests++;
    const base = `http://${req.headers.host}`;
    const doc = document(base, req.url ?? '/');
    if (doc === undefined) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"Record not found"}');
      return;
    }
    const body = JSON.stringify(doc);
    res.writeHead(200, { 'content-type': AP_JSON, 'content-length': String(Buffer.byteLength(body)) }).end(body);
  };
  const servers: http.Server[] = [];
  const origins: BenchOrigin[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const server = http.createServer({ keepAliveTimeout: 5_000 }, handler);
      servers.push(server);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, '127.0.0.1', () => resolve());
      });
      const port = (server.address() as AddressInfo).port;
      origins.push({ url: `http://127.0.0.1:${port}`, host: `127.0.0.1:${port}` });
    }
  } catch (e) {
    await closeAll(servers);
    throw e;
  }
  return { origins, requests: () => requests, close: () => closeAll(servers) };
}

async function closeAll(servers: readonly http.Server[]): Promise<void> {
  await Promise.all(
    servers.map(
      (s) =>
        new Promise<void>((resolve) => {
          s.closeAllConnections();
          s.close(() => resolve());
        }),
    ),
  );
}
