// A fake remote origin on loopback for remote-history tests: actor documents with outboxes, and any document or
// misbehaviour at any path (the pitfalls of reference/history.md §3). Independent of Stoa's federation code.
//
//   const o = await startHistoryOrigin();
//   const alice = o.actor('alice');                    // {o.url}/users/alice, outbox {o.url}/users/alice/outbox
//   o.load('basic', { name: 'alice' });                // test/fixtures/outboxes/basic.json: path → document
//   o.serve('/users/alice/outbox', { status: 429, headers: { 'x-ratelimit-reset': '…' } });
//   o.serve('/x', slowloris()); o.serve('/y', gzipBomb()); o.serve('/z', hugePage(3 << 20));
//   o.requireSignature = true;                         // 401 to unsigned GETs (authorized fetch, GoToSocial)
//   o.verifySignatures = 'without-query';              // 401 unless the signature verifies with that (request-target)
//   o.requests('/users/alice/outbox'); o.maxConcurrent(); o.headers(path); await o.close();
//
// In documents and fixtures every string `{origin}` becomes this origin's URL when served, and `{key}` a variable
// given to `load` (`{name}`: the actor's name).
import http from 'node:http';
import { verify } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';

const FIXTURES = fileURLToPath(new URL('../../../test/fixtures/outboxes/', import.meta.url));
const AP_JSON = 'application/activity+json';

/** How the origin answers one path. */
export interface OriginAnswer {
  /** Default 200. */
  readonly status?: number;
  /** A document, sent as JSON (its `{origin}` strings replaced). */
  readonly json?: unknown;
  /** A raw body instead of `json`. */
  readonly body?: string | Buffer;
  /** Default application/activity+json. */
  readonly contentType?: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** The body is sent as it is (already gzip-compressed), with Content-Encoding: gzip. */
  readonly gzipped?: boolean;
  /** Sent chunked, without Content-Length. */
  readonly chunked?: boolean;
  /** Headers sent, then one byte a second, never ending (the client must give up). */
  readonly slowloris?: boolean;
  /** Held this long before answering (to see concurrent requests). */
  readonly delayMs?: number;
}

export type OriginRoute = OriginAnswer | ((req: http.IncomingMessage) => OriginAnswer);

export interface HistoryOrigin {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** `127.0.0.1:<port>`: the origin key Stoa keeps (lower-case host:port). */
  readonly host: string;
  /** Unsigned GETs (no Signature header) get 401 while true. */
  requireSignature: boolean;
  /**
   * While set, a GET gets 401 unless its Signature verifies (rsa-sha256, the key fetched from its keyId and found
   * under exactly that id) with `(request-target)` in this one form: the path with its query string, or without it
   * (P27: servers differ; an origin accepting one form only).
   */
  verifySignatures: 'with-query' | 'without-query' | null;
  /** The keyIds of the signatures verified so far. */
  readonly verifiedKeyIds: readonly string[];
  serve(path: string, route: OriginRoute): void;
  /**
   * Serves every path of test/fixtures/outboxes/<name>.json (an object: path → document), its `{key}` strings
   * replaced by `vars` (`basic` and `loop` take `{name}`: `o.load('basic', { name: 'ann' })` after `o.actor('ann')`).
   * `basic`: outbox → page 1 (public #history post 5, unlisted 4, public 3 with an image) → page 2 (public 2, 1),
   * dated 2024-05-05 … 2024-01-01. `loop`: page 1 ↔ page 2, one post each. The others are real servers' shapes.
   */
  load(name: string, vars?: Readonly<Record<string, string>>): void;
  /** A Person (or `type`) at /users/<name> with its outbox at /users/<name>/outbox (or `outbox`; null: none), and a `featured` collection if given. */
  actor(name: string, opts?: { type?: string; outbox?: string | null; featured?: string }): string;
  /** Requests answered (any path, or one path with its query). */
  requests(path?: string): number;
  /** Every request's path (with its query), in order of arrival. */
  readonly requestLog: readonly string[];
  /** The most requests in flight at once (any path, or one path). */
  maxConcurrent(path?: string): number;
  /** Whether the last request to `path` carried a Signature header. */
  signed(path: string): boolean;
  /** The last request's headers to `path` (lower-case names), or undefined. */
  headers(path: string): Readonly<http.IncomingHttpHeaders> | undefined;
  close(): Promise<void>;
}

export function slowloris(): OriginAnswer {
  return { slowloris: true };
}

/** A small gzip body that inflates to `bytes` (default 64 MiB) of JSON-looking text. */
export function gzipBomb(bytes = 64 << 20): OriginAnswer {
  const body = zlib.gzipSync(Buffer.concat([Buffer.from('{"type":"OrderedCollectionPage","x":"'), Buffer.alloc(bytes, 0x61)]), { level: 9 });
  return { body, gzipped: true };
}

/** A valid collection page of about `bytes` bytes (a 3 MiB page is over the 2 MiB cap). */
export function hugePage(bytes: number, opts: { chunked?: boolean } = {}): OriginAnswer {
  const filler = 'x'.repeat(bytes);
  return { body: JSON.stringify({ type: 'OrderedCollectionPage', orderedItems: [], filler }), ...(opts.chunked && { chunked: true }) };
}

function substitute(x: unknown, vars: Readonly<Record<string, string>>): unknown {
  if (typeof x === 'string') return x.replace(/\{(\w+)\}/g, (m, k: string) => vars[k] ?? m);
  if (Array.isArray(x)) return x.map((v) => substitute(v, vars));
  if (x && typeof x === 'object') return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, substitute(v, vars)]));
  return x;
}

export async function startHistoryOrigin(): Promise<HistoryOrigin> {
  const routes = new Map<string, OriginRoute>();
  const counts = new Map<string, number>();
  const inFlight = new Map<string, number>();
  const peaks = new Map<string, number>();
  const lastHeaders = new Map<string, http.IncomingHttpHeaders>();
  const sockets = new Set<import('node:net').Socket>();

  const bump = (key: string, by: number) => {
    const n = (inFlight.get(key) ?? 0) + by;
    inFlight.set(key, n);
    peaks.set(key, Math.max(peaks.get(key) ?? 0, n));
  };

  const requestLog: string[] = [];
  const keys = new Map<string, string>();
  const verifiedKeyIds: string[] = [];

  /** The key `keyId` names, fetched as a remote server would: the document at the id without its fragment. */
  const keyFor = async (keyId: string): Promise<string | null> => {
    if (keys.has(keyId)) return keys.get(keyId)!;
    const res = await fetch(keyId.split('#')[0]!, { headers: { accept: AP_JSON } });
    if (!res.ok) return null;
    const doc = (await res.json()) as Record<string, unknown>;
    const found = [doc['publicKey']].flat().find((k) => (k as { id?: string } | undefined)?.id === keyId) as { publicKeyPem?: string } | undefined;
    const pem = found?.publicKeyPem ?? (doc['id'] === keyId ? (doc['publicKeyPem'] as string | undefined) : undefined) ?? null;
    if (pem) keys.set(keyId, pem);
    return pem;
  };

  const verifies = async (req: http.IncomingMessage, form: 'with-query' | 'without-query'): Promise<boolean> => {
    const header = req.headers.signature;
    if (typeof header !== 'string') return false;
    const params = new Map([...header.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]));
    const keyId = params.get('keyId');
    const signature = params.get('signature');
    if (!keyId || !signature) return false;
    const pem = await keyFor(keyId).catch(() => null);
    if (!pem) return false;
    const target = form === 'with-query' ? req.url! : req.url!.split('?')[0]!;
    const lines = (params.get('headers') ?? 'date')
      .split(' ')
      .map((h) => (h === '(request-target)' ? `(request-target): ${req.method!.toLowerCase()} ${target}` : `${h}: ${String(req.headers[h] ?? '')}`));
    const ok = verify('sha256', Buffer.from(lines.join('\n')), pem, Buffer.from(signature, 'base64'));
    if (ok) verifiedKeyIds.push(keyId);
    return ok;
  };

  const server = http.createServer(async (req, res) => {
    const path = req.url ?? '/';
    const pathOnly = path.split('?')[0]!;
    for (const k of ['*', path]) counts.set(k, (counts.get(k) ?? 0) + 1);
    requestLog.push(path);
    lastHeaders.set(path, req.headers);
    bump('*', 1);
    bump(path, 1);
    res.on('close', () => {
      bump('*', -1);
      bump(path, -1);
    });
    const route = routes.get(path) ?? routes.get(pathOnly);
    if (origin.requireSignature && req.headers.signature === undefined) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"Request not signed"}');
      return;
    }
    if (origin.verifySignatures && !(await verifies(req, origin.verifySignatures))) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"Verification failed"}');
      return;
    }
    if (!route) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"Record not found"}');
      return;
    }
    const a = typeof route === 'function' ? route(req) : route;
    const answer = () => {
      if (a.slowloris) {
        res.writeHead(200, { 'content-type': AP_JSON, 'transfer-encoding': 'chunked' });
        res.write('{');
        const timer = setInterval(() => res.write(' '), 1000);
        res.on('close', () => clearInterval(timer));
        return;
      }
      const body = a.json !== undefined ? JSON.stringify(substitute(a.json, { origin: origin.url })) : (a.body ?? '');
      const headers: Record<string, string> = { 'content-type': a.contentType ?? AP_JSON, ...a.headers };
      if (a.gzipped) headers['content-encoding'] = 'gzip';
      if (a.chunked) {
        res.writeHead(a.status ?? 200, headers);
        const buf = Buffer.from(body);
        for (let i = 0; i < buf.length; i += 65536) res.write(buf.subarray(i, i + 65536));
        res.end();
        return;
      }
      res.writeHead(a.status ?? 200, { ...headers, 'content-length': String(Buffer.byteLength(body)) }).end(body);
    };
    if (a.delayMs) setTimeout(answer, a.delayMs);
    else answer();
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  const origin: HistoryOrigin = {
    url: `http://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    requireSignature: false,
    verifySignatures: null,
    verifiedKeyIds,
    serve: (path, route) => void routes.set(path, route),
    load(name, given = {}) {
      const doc = JSON.parse(readFileSync(`${FIXTURES}${name}.json`, 'utf8')) as Record<string, unknown>;
      // Variables are bound now (one fixture may be loaded for several actors); `{origin}` when served.
      const bound = { ...given };
      for (const [path, json] of Object.entries(doc)) routes.set(String(substitute(path, bound)), { json: substitute(json, bound) });
    },
    actor(name, opts = {}) {
      const id = `${origin.url}/users/${name}`;
      const outbox = opts.outbox === undefined ? `${id}/outbox` : opts.outbox;
      routes.set(`/users/${name}`, {
        json: {
          '@context': 'https://www.w3.org/ns/activitystreams',
          id,
          type: opts.type ?? 'Person',
          preferredUsername: name,
          inbox: `${id}/inbox`,
          followers: `${id}/followers`,
          ...(outbox !== null && { outbox }),
          ...(opts.featured !== undefined && { featured: opts.featured }),
        },
      });
      return id;
    },
    requests: (path = '*') => counts.get(path) ?? 0,
    requestLog,
    maxConcurrent: (path = '*') => peaks.get(path) ?? 0,
    signed: (path) => lastHeaders.get(path)?.signature !== undefined,
    headers: (path) => lastHeaders.get(path),
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return origin;
}
