// A minimal ActivityPub peer on 127.0.0.1 for delivery tests: it serves Person actors (with publicKey, inbox and,
// optionally, a shared inbox) and WebFinger for them, records every POST, and can be switched into failure modes
// (down, an error status, 429 with Retry-After, slow, hanging). Stoa does not verify what a peer answers to a
// delivery, so the peer signs nothing; its key only has to exist for Stoa to store the actor.
import { generateKeyPairSync } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** How the peer answers a POST. GETs (actors, WebFinger) are always answered, unless the peer is down. */
export type InboxMode =
  | { readonly kind: 'ok' }
  | { readonly kind: 'status'; readonly status: number; readonly headers?: Readonly<Record<string, string>> }
  | { readonly kind: 'slow'; readonly delayMs: number }
  | { readonly kind: 'hang' };

export interface RecordedPost {
  readonly path: string;
  /** Lower-case names, as node:http gives them. */
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
  /** When the request arrived (Date.now()). */
  readonly at: number;
  /** The status answered; null until the answer is written (or forever, for a request that hung or was cut). */
  status: number | null;
  /** When the answer was written. */
  answeredAt: number | null;
}

export interface RecordingInboxOptions {
  /** Actors to serve (preferredUsername); more can be added with addActor. */
  readonly actors?: readonly string[];
  /** Whether actors advertise the shared inbox `/inbox` (endpoints.sharedInbox). Default true. */
  readonly sharedInbox?: boolean;
}

export interface RecordingInbox {
  readonly url: string;
  readonly host: string;
  readonly port: number;
  readonly posts: readonly RecordedPost[];
  /** POSTs being handled right now, and the most there ever were at once. */
  readonly inFlight: number;
  readonly maxInFlight: number;
  actorUrl(name: string): string;
  /** The inbox a delivery to this actor goes to: the shared inbox when advertised, else the actor's own. */
  inboxPathOf(name: string): string;
  addActor(name: string): string;
  setMode(mode: InboxMode): void;
  /** POSTs that were answered with a 2xx. */
  delivered(): RecordedPost[];
  /** Stops listening and cuts every open connection: new connections are refused. */
  down(): Promise<void>;
  /** Listens again on the same port. */
  up(): Promise<void>;
  close(): Promise<void>;
}

const AS_CONTEXT = ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/v1'];
const MAX_BODY = 1 << 20;

export async function startRecordingInbox(opts: RecordingInboxOptions = {}): Promise<RecordingInbox> {
  // PEM straight from the generator: Node 20 can deadlock exporting a KeyObject made by generateKeyPairSync when a
  // garbage collection runs mid-export (KeyGenJob's destructor takes the key's mutex, which the export holds).
  const { publicKey: publicKeyPem } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const shared = opts.sharedInbox ?? true;
  const actors = new Set<string>(opts.actors ?? []);
  const posts: RecordedPost[] = [];
  let mode: InboxMode = { kind: 'ok' };
  let inFlight = 0;
  let maxInFlight = 0;
  let base = '';
  let port = 0;

  const actorDoc = (name: string): Record<string, unknown> => {
    const id = `${base}/users/${name}`;
    return {
      '@context': AS_CONTEXT,
      id,
      type: 'Person',
      preferredUsername: name,
      name: `Peer ${name}`,
      inbox: `${id}/inbox`,
      outbox: `${id}/outbox`,
      ...(shared && { endpoints: { sharedInbox: `${base}/inbox` } }),
      publicKey: { id: `${id}#main-key`, owner: id, publicKeyPem },
    };
  };

  const json = (res: http.ServerResponse, status: number, type: string, doc: unknown): void => {
    res.writeHead(status, { 'content-type': type });
    res.end(JSON.stringify(doc));
  };

  const answerGet = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const url = new URL(req.url ?? '/', base);
    const actor = /^\/users\/([^/]+)$/.exec(url.pathname)?.[1];
    if (actor !== undefined && actors.has(actor)) return json(res, 200, 'application/activity+json', actorDoc(actor));
    if (url.pathname === '/.well-known/webfinger') {
      const m = /^acct:([^@]+)@(.+)$/.exec(url.searchParams.get('resource') ?? '');
      if (m && actors.has(m[1]!) && m[2] === `127.0.0.1:${port}`) {
        return json(res, 200, 'application/jrd+json', {
          subject: `acct:${m[1]}@127.0.0.1:${port}`,
          links: [{ rel: 'self', type: 'application/activity+json', href: `${base}/users/${m[1]}` }],
        });
      }
    }
    json(res, 404, 'application/json', { error: 'not found' });
  };

  const answerPost = (record: RecordedPost, res: http.ServerResponse, m: InboxMode): void => {
    const finish = (status: number, headers: Readonly<Record<string, string>> = {}): void => {
      if (res.destroyed) return;
      res.writeHead(status, headers);
      res.end();
      record.status = status;
      record.answeredAt = Date.now();
    };
    switch (m.kind) {
      case 'ok':
        return finish(202);
      case 'status':
        return finish(m.status, m.headers);
      case 'slow': {
        const t = setTimeout(() => finish(202), m.delayMs);
        res.on('close', () => clearTimeout(t));
        return;
      }
      case 'hang':
        return; // never answered: the connection stays open until the client gives up or the peer goes down
    }
  };

  /** One of this peer's inboxes: a POST elsewhere is not for it (below). */
  const ownInbox = (path: string): boolean => {
    if (shared && path === '/inbox') return true;
    const actor = /^\/users\/([^/]+)\/inbox$/.exec(path)?.[1];
    return actor !== undefined && actors.has(actor);
  };

  const server = http.createServer((req, res) => {
    if (req.method !== 'POST') return answerGet(req, res);
    // Ports are reused across the run: a server of another test file may still be retrying deliveries to an
    // earlier peer that had this port. Those are refused unrecorded, so they never count as ours.
    if (!ownInbox(new URL(req.url ?? '/', 'http://peer').pathname)) return json(res, 404, 'application/json', { error: 'no such inbox' });
    const chunks: Buffer[] = [];
    let size = 0;
    const at = Date.now();
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    // In flight until the answer is written or the connection is cut, whichever comes first.
    let counted = true;
    const done = (): void => {
      if (counted) inFlight--;
      counted = false;
    };
    res.on('finish', done);
    res.on('close', done);
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY) chunks.push(c);
    });
    req.on('end', () => {
      const record: RecordedPost = {
        path: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at,
        status: null,
        answeredAt: null,
      };
      posts.push(record);
      answerPost(record, res, mode);
    });
  });

  const listen = (p: number): Promise<void> =>
    new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(p, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  const stop = (): Promise<void> =>
    new Promise((resolve) => {
      if (!server.listening) return resolve();
      server.close(() => resolve());
      server.closeAllConnections();
    });

  await listen(0);
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;

  return {
    url: base,
    host: `127.0.0.1:${port}`,
    port,
    posts,
    get inFlight() {
      return inFlight;
    },
    get maxInFlight() {
      return maxInFlight;
    },
    actorUrl: (name) => `${base}/users/${name}`,
    inboxPathOf: (name) => (shared ? '/inbox' : `/users/${name}/inbox`),
    addActor(name) {
      actors.add(name);
      return `${base}/users/${name}`;
    },
    setMode(m) {
      mode = m;
    },
    delivered: () => posts.filter((p) => p.status !== null && p.status >= 200 && p.status < 300),
    down: stop,
    up: () => listen(port),
    close: stop,
  };
}
