import assert from 'node:assert/strict';
import diagnostics from 'node:diagnostics_channel';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import zlib from 'node:zlib';
import { z } from 'zod';
import { FetchError, parseRetryAfter, type FetchErrorKind } from '../../src/federation/fetch-errors.js';
import { HttpClient, type OutgoingRequest, type Resolver } from '../../src/federation/http-client.js';

const LOOPBACK = { allow: ['127.0.0.0/8', '::1/128'] };
const MiB = 1024 * 1024;
/** A broken guard must fail a test, not hang the run (a peer streaming forever, a socket never closed). */
const LIMIT = { timeout: 10_000 };

interface Peer {
  readonly port: number;
  readonly origin: string;
  /** Connections accepted so far. */
  connections: number;
  /** Requests seen so far, in order. */
  readonly seen: { method: string; url: string; headers: http.IncomingHttpHeaders; body: string }[];
  close(): Promise<void>;
}

const peers: Peer[] = [];
after(async () => {
  await Promise.all(peers.map((p) => p.close()));
});

/** A real HTTP server on loopback; the handler sees the request after its body has been read. */
async function peer(handler: (req: http.IncomingMessage, res: http.ServerResponse) => void, host = '127.0.0.1'): Promise<Peer> {
  const seen: Peer['seen'] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString() });
      handler(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  const p: Peer = {
    port,
    origin: `http://${host}:${port}`,
    connections: 0,
    seen,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
  server.on('connection', () => p.connections++);
  peers.push(p);
  return p;
}

function client(opts: { allow?: string[]; resolver?: Resolver; timeoutMs?: number; maxBytes?: number } = {}): HttpClient {
  return new HttpClient({
    policy: { allow: opts.allow ?? LOOPBACK.allow },
    timeoutMs: opts.timeoutMs ?? 5000,
    maxBytes: opts.maxBytes ?? 2 * MiB,
    userAgent: 'Stoa-test/1.0',
    ...(opts.resolver && { resolver: opts.resolver }),
  });
}

/** A resolver with a fixed table; unknown names fail like the system resolver does. */
function resolverOf(table: Record<string, string[]>, calls: string[] = []): Resolver {
  return async (host) => {
    calls.push(host);
    const addresses = table[host];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}

async function rejectsWith(p: Promise<unknown>, kind: FetchErrorKind, reason: string): Promise<FetchError> {
  const err = await p.then(
    () => assert.fail(`expected FetchError ${kind}/${reason}, got a response`),
    (e: unknown) => e,
  );
  assert.ok(err instanceof FetchError, `expected a FetchError, got ${String(err)}`);
  assert.equal(err.reason, reason, err.message);
  assert.equal(err.kind, kind, err.message);
  return err;
}

/** Counts client sockets created while `fn` runs (node publishes each new net.Socket on this channel). */
async function socketsOpenedDuring(fn: () => Promise<unknown>): Promise<number> {
  let n = 0;
  const onSocket = (): void => {
    n++;
  };
  diagnostics.subscribe('net.client.socket', onSocket);
  try {
    await fn();
  } finally {
    diagnostics.unsubscribe('net.client.socket', onSocket);
  }
  return n;
}

const json = (res: http.ServerResponse, value: unknown, type = 'application/activity+json'): void => {
  res.writeHead(200, { 'content-type': type }).end(JSON.stringify(value));
};
const Doc = z.object({ id: z.string(), inbox: z.string() });
const doc = { id: 'https://peer.example/users/a', inbox: 'https://peer.example/users/a/inbox' };

describe('HttpClient SSRF guard', () => {
  it('refuses a literal address in every forbidden class before opening any connection', LIMIT, async () => {
    const local = await peer((_req, res) => json(res, doc));
    const c = client({ allow: [] });
    const urls = [
      local.origin + '/',
      'http://[::1]/',
      'http://10.0.0.1/',
      'http://172.16.0.1/',
      'http://192.168.1.1/',
      'http://169.254.169.254/latest/meta-data/',
      'http://[fc00::1]/',
      'http://[fe80::1]/',
      'http://[::ffff:127.0.0.1]/',
      'http://[::ffff:7f00:1]/',
      'http://0.0.0.0/',
      'http://[::]/',
      'http://224.0.0.1/',
      'http://100.64.0.1/',
      'https://2130706433/',
      'http://0x7f.1/',
    ];
    for (const url of urls) {
      const opened = await socketsOpenedDuring(() => rejectsWith(c.request({ method: 'GET', url }), 'unsupported', 'forbidden_address'));
      assert.equal(opened, 0, `no socket for ${url}`);
    }
    assert.equal(local.connections, 0, 'the loopback server listening was never reached');
  });

  it('refuses a name resolving to a private address, or to a private address among public ones (rebinding)', LIMIT, async () => {
    const local = await peer((_req, res) => json(res, doc));
    const calls: string[] = [];
    const c = client({
      allow: [],
      resolver: resolverOf({ 'peer.test': ['10.0.0.5'], 'rebind.test': ['93.184.216.34', '127.0.0.1'], 'six.test': ['::1'] }, calls),
    });
    for (const host of ['peer.test', 'rebind.test', 'six.test']) {
      const err = await rejectsWith(c.getJson(`http://${host}:${local.port}/`, Doc), 'unsupported', 'forbidden_address');
      assert.match(err.message, new RegExp(host.replace('.', '\\.')));
    }
    assert.deepEqual(calls, ['peer.test', 'rebind.test', 'six.test']);
    assert.equal(local.connections, 0);
  });

  it('connects to the address the resolver gave and sends the name as Host', LIMIT, async () => {
    const local = await peer((_req, res) => json(res, doc));
    const calls: string[] = [];
    const c = client({ resolver: resolverOf({ 'good.test': ['127.0.0.1'] }, calls) });
    const { value, url } = await c.getJson(`http://good.test:${local.port}/users/a#main`, Doc);
    assert.deepEqual(value, doc);
    assert.equal(url, `http://good.test:${local.port}/users/a`, 'the fragment is not part of the request');
    assert.deepEqual(calls, ['good.test']);
    assert.equal(local.seen[0]?.headers.host, `good.test:${local.port}`);
    assert.equal(local.seen[0]?.headers['user-agent'], 'Stoa-test/1.0');
    assert.equal(local.seen[0]?.url, '/users/a');
  });

  it('reports a name that does not resolve as a transient DNS failure', LIMIT, async () => {
    const c = client({ resolver: async (host) => (host === 'empty.test' ? [] : resolverOf({})(host)) });
    await rejectsWith(c.request({ method: 'GET', url: 'http://nowhere.test/' }), 'transient', 'dns_failure');
    await rejectsWith(c.request({ method: 'GET', url: 'http://empty.test/' }), 'transient', 'dns_failure');
  });

  it('refuses URLs that are not http(s), carry credentials or do not parse, without echoing the password', LIMIT, async () => {
    const c = client();
    for (const url of ['ftp://127.0.0.1/', 'file:///etc/passwd', 'not a url', 'javascript:alert(1)']) {
      await rejectsWith(c.request({ method: 'GET', url }), 'unsupported', 'bad_url');
    }
    const err = await rejectsWith(c.request({ method: 'GET', url: 'http://user:hunter2@127.0.0.1/' }), 'unsupported', 'bad_url');
    assert.doesNotMatch(err.message + err.url, /hunter2/);
  });

  it('reports a refused connection as a transient network error', LIMIT, async () => {
    const gone = await peer(() => {});
    await gone.close();
    await rejectsWith(client().request({ method: 'GET', url: gone.origin + '/' }), 'transient', 'network');
  });
});

describe('HttpClient redirects', () => {
  it('refuses a redirect from an allowed peer to a private address', LIMIT, async () => {
    const origin = await peer((_req, res) => res.writeHead(302, { location: 'http://10.0.0.1/admin' }).end());
    const signed: string[] = [];
    const c = client();
    const opened = await socketsOpenedDuring(() =>
      rejectsWith(
        c.getJson(origin.origin + '/start', Doc, {
          sign: (r) => {
            signed.push(r.url.href);
            return {};
          },
        }),
        'unsupported',
        'forbidden_address',
      ),
    );
    assert.equal(opened, 1, 'only the first hop connected');
    assert.deepEqual(signed, [origin.origin + '/start']);
  });

  it("refuses a redirect to loopback when only the peer's own address is allowed", LIMIT, async () => {
    const victim = await peer((_req, res) => json(res, doc));
    const origin = await peer((req, res) => {
      const location = req.url === '/literal' ? `http://127.0.0.1:${victim.port}/` : `http://localhost:${victim.port}/`;
      res.writeHead(301, { location }).end();
    }, '127.0.0.2');
    const c = client({ allow: ['127.0.0.2/32'], resolver: resolverOf({ 'peer.test': ['127.0.0.2'], localhost: ['127.0.0.1'] }) });
    await rejectsWith(c.getJson(`http://peer.test:${origin.port}/literal`, Doc), 'unsupported', 'forbidden_address');
    await rejectsWith(c.getJson(`http://peer.test:${origin.port}/name`, Doc), 'unsupported', 'forbidden_address');
    assert.equal(origin.seen.length, 2, 'the allowed peer was reached');
    assert.equal(victim.connections, 0, 'the loopback target never was');
  });

  it('follows 3 redirects but not 4, with absolute and relative Locations', LIMIT, async () => {
    // /hop/N redirects to /hop/N-1 (alternating absolute and relative Locations); /hop/0 is the document.
    const p = await peer((req, res) => {
      const n = Number(req.url?.split('/')[2]);
      if (n === 0) return json(res, doc);
      const next = `/hop/${n - 1}`;
      res.writeHead([301, 302, 303, 307, 308][n % 5]!, { location: n % 2 ? `http://127.0.0.1:${p.port}${next}` : next }).end('moved');
    });
    const c = client();
    const ok = await c.getJson(p.origin + '/hop/3', Doc);
    assert.equal(ok.url, p.origin + '/hop/0');
    assert.deepEqual(ok.value, doc);
    const before = p.seen.length;
    const err = await rejectsWith(c.getJson(p.origin + '/hop/4', Doc), 'unsupported', 'too_many_redirects');
    assert.equal(p.seen.length - before, 4, 'the fourth redirect was not followed');
    assert.equal(err.url, p.origin + '/hop/1');
  });

  it('resolves a Location relative to the current path', LIMIT, async () => {
    const p = await peer((req, res) => {
      if (req.url === '/a/b/start') return res.writeHead(307, { location: '../c/end?x=1' }).end();
      if (req.url === '/a/c/end?x=1') return json(res, doc, 'application/ld+json; profile="https://www.w3.org/ns/activitystreams"');
      res.writeHead(404).end();
    });
    const { url } = await client().getJson(p.origin + '/a/b/start', Doc);
    assert.equal(url, p.origin + '/a/c/end?x=1');
  });

  it('refuses a redirect to a scheme other than http(s)', LIMIT, async () => {
    const p = await peer((_req, res) => res.writeHead(302, { location: 'ftp://127.0.0.1/file' }).end());
    await rejectsWith(client().getJson(p.origin + '/', Doc), 'unsupported', 'bad_redirect');
  });

  it('calls the signer again for each hop, with the new URL and Host', LIMIT, async () => {
    const resolver = resolverOf({ 'peer.test': ['127.0.0.1'] });
    const p = await peer((req, res) => {
      if (req.url === '/first') return res.writeHead(302, { location: `http://peer.test:${p.port}/second` }).end();
      json(res, doc);
    });
    const hops: OutgoingRequest[] = [];
    const sign = (r: OutgoingRequest): Record<string, string> => {
      hops.push(r);
      return { Signature: `keyId="k",sig-for="${r.method} ${r.url.href} ${r.headers.host}"`, Date: 'Thu, 01 Jan 2026 00:00:00 GMT' };
    };
    await client({ resolver }).getJson(p.origin + '/first', Doc, { sign });
    assert.deepEqual(
      hops.map((h) => [h.url.href, h.headers.host]),
      [
        [p.origin + '/first', `127.0.0.1:${p.port}`],
        [`http://peer.test:${p.port}/second`, `peer.test:${p.port}`],
      ],
    );
    assert.equal(hops[0]!.headers.accept?.startsWith('application/activity+json'), true, 'the signer sees the headers to be sent');
    assert.deepEqual(
      p.seen.map((s) => s.headers.signature),
      [`keyId="k",sig-for="GET ${p.origin}/first 127.0.0.1:${p.port}"`, `keyId="k",sig-for="GET http://peer.test:${p.port}/second peer.test:${p.port}"`],
    );
    assert.equal(p.seen[1]?.headers.date, 'Thu, 01 Jan 2026 00:00:00 GMT');
  });

  it('sends a signed POST with its body and returns a redirect to it instead of following', LIMIT, async () => {
    const p = await peer((req, res) => {
      if (req.url === '/inbox') return res.writeHead(302, { location: '/elsewhere' }).end();
      res.writeHead(202).end();
    });
    const body = Buffer.from(JSON.stringify({ type: 'Follow' }));
    const seenBySigner: (Buffer | undefined)[] = [];
    const res = await client().request({
      method: 'POST',
      url: p.origin + '/inbox',
      headers: { 'Content-Type': 'application/activity+json' },
      body,
      sign: async (r) => {
        seenBySigner.push(r.body);
        return { digest: 'SHA-256=abc', signature: 'sig' };
      },
    });
    assert.equal(res.status, 302);
    assert.equal(res.headers.location, '/elsewhere');
    assert.deepEqual(
      p.seen.map((s) => s.url),
      ['/inbox'],
    );
    assert.equal(p.seen[0]?.body, body.toString());
    assert.equal(p.seen[0]?.headers['content-type'], 'application/activity+json');
    assert.equal(p.seen[0]?.headers.digest, 'SHA-256=abc');
    assert.equal(p.seen[0]?.headers.signature, 'sig');
    assert.deepEqual(seenBySigner, [body]);
  });
});

/** Resolves when the server side of the request's connection is closed. */
function closedOnServer(res: http.ServerResponse): Promise<void> {
  return new Promise((resolve) => res.socket?.once('close', () => resolve()));
}

describe('HttpClient byte cap', () => {
  it('refuses a declared Content-Length over the cap without reading the body, and closes the connection', LIMIT, async () => {
    let closed: Promise<void> | undefined;
    const p = await peer((_req, res) => {
      closed = closedOnServer(res);
      res.writeHead(200, { 'content-type': 'application/activity+json', 'content-length': String(3 * MiB) });
      res.write(Buffer.alloc(64 * 1024, 0x20));
    });
    const err = await rejectsWith(client().getJson(p.origin + '/', Doc), 'unsupported', 'too_large');
    assert.match(err.message, /content-length 3145728/);
    await closed;
  });

  it('stops reading an endless body at the cap and closes the connection', LIMIT, async () => {
    let written = 0;
    let closed: Promise<void> | undefined;
    const p = await peer((_req, res) => {
      closed = closedOnServer(res);
      res.writeHead(200, { 'content-type': 'application/activity+json' });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const pump = (): void => {
        while (!res.destroyed && res.write(chunk)) written += chunk.length;
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
    });
    await rejectsWith(client({ maxBytes: MiB }).getJson(p.origin + '/', Doc), 'unsupported', 'too_large');
    await closed;
    assert.ok(written < 16 * MiB, `the server stopped after ${written} bytes`);
  });

  it('caps the decoded size of a compressed body, and decodes one under the cap', LIMIT, async () => {
    const bomb = zlib.gzipSync(Buffer.alloc(8 * MiB, 0x20));
    const small = zlib.brotliCompressSync(Buffer.from(JSON.stringify(doc)));
    const p = await peer((req, res) => {
      const [encoding, payload] = req.url === '/bomb' ? ['gzip', bomb] : ['br', small];
      res.writeHead(200, { 'content-type': 'application/activity+json', 'content-encoding': encoding }).end(payload);
    });
    assert.ok(bomb.length < MiB);
    await rejectsWith(client({ maxBytes: MiB }).getJson(p.origin + '/bomb', Doc), 'unsupported', 'too_large');
    assert.deepEqual((await client().getJson(p.origin + '/small', Doc)).value, doc);
    assert.match(String(p.seen[0]?.headers['accept-encoding']), /gzip/);
  });
});

describe('HttpClient timeout', () => {
  it('gives up on a peer that never answers, within the deadline', LIMIT, async () => {
    const p = await peer(() => {});
    const started = Date.now();
    await rejectsWith(client({ timeoutMs: 300 }).request({ method: 'GET', url: p.origin + '/' }), 'transient', 'timeout');
    const elapsed = Date.now() - started;
    assert.ok(elapsed >= 290 && elapsed < 1500, `took ${elapsed} ms`);
  });

  it('gives up on a peer that trickles its body past the deadline', LIMIT, async () => {
    const p = await peer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/activity+json' });
      const timer = setInterval(() => res.write(' '), 50);
      res.on('close', () => clearInterval(timer));
    });
    const started = Date.now();
    await rejectsWith(client().getJson(p.origin + '/', Doc, { timeoutMs: 300 }), 'transient', 'timeout');
    const elapsed = Date.now() - started;
    assert.ok(elapsed >= 290 && elapsed < 1500, `took ${elapsed} ms`);
  });

  it('counts a slow resolver and a slow signer against the same deadline', LIMIT, async () => {
    const p = await peer((_req, res) => json(res, doc));
    const never = new Promise<never>(() => {});
    const slowDns = client({ timeoutMs: 300, resolver: () => never });
    const started = Date.now();
    await rejectsWith(slowDns.request({ method: 'GET', url: `http://slow.test:${p.port}/` }), 'transient', 'timeout');
    await rejectsWith(client({ timeoutMs: 300 }).request({ method: 'GET', url: p.origin + '/', sign: () => never }), 'transient', 'timeout');
    const elapsed = Date.now() - started;
    assert.ok(elapsed >= 580 && elapsed < 1500, `took ${elapsed} ms`);
    assert.equal(p.connections, 0);
  });
});

describe('HttpClient.getJson', () => {
  it('maps statuses to error kinds, with Retry-After for 429', LIMIT, async () => {
    const p = await peer((req, res) => {
      const status = Number(req.url?.slice(1));
      res.writeHead(status, status === 429 ? { 'retry-after': '120' } : {}).end('no');
    });
    const c = client();
    const cases: [number, FetchErrorKind][] = [
      [404, 'not_found'],
      [410, 'gone'],
      [503, 'transient'],
      [500, 'transient'],
      [408, 'transient'],
      [403, 'unsupported'],
      [401, 'unsupported'],
      [400, 'unsupported'],
      [304, 'unsupported'],
    ];
    for (const [status, kind] of cases) {
      const err = await rejectsWith(c.getJson(`${p.origin}/${status}`, Doc), kind, 'http_status');
      assert.equal(err.status, status);
    }
    const limited = await rejectsWith(c.getJson(`${p.origin}/429`, Doc), 'rate_limited', 'http_status');
    assert.equal(limited.retryAfterMs, 120_000);
    const res = await c.request({ method: 'GET', url: `${p.origin}/503` });
    assert.equal(res.status, 503, 'request() returns statuses instead of throwing');
    assert.equal(res.body.toString(), 'no');
  });

  it('refuses a body that is not JSON of an ActivityPub media type, or not the expected document', LIMIT, async () => {
    const p = await peer((req, res) => {
      if (req.url === '/html') return res.writeHead(200, { 'content-type': 'text/html' }).end('<p>hi</p>');
      if (req.url === '/none') return res.writeHead(200).end(JSON.stringify(doc));
      if (req.url === '/broken') return res.writeHead(200, { 'content-type': 'application/json' }).end('{"id":');
      if (req.url === '/jrd') return json(res, doc, 'application/jrd+json; charset=utf-8');
      json(res, { id: 'https://peer.example/users/a', inbox: 42 });
    });
    const c = client();
    await rejectsWith(c.getJson(p.origin + '/html', Doc), 'unsupported', 'bad_content_type');
    await rejectsWith(c.getJson(p.origin + '/none', Doc), 'unsupported', 'bad_content_type');
    await rejectsWith(c.getJson(p.origin + '/jrd', Doc), 'unsupported', 'bad_content_type');
    await rejectsWith(c.getJson(p.origin + '/broken', Doc), 'unsupported', 'invalid_json');
    const err = await rejectsWith(c.getJson(p.origin + '/wrong', Doc), 'unsupported', 'invalid_document');
    assert.match(err.message, /inbox/);
  });

  it('asks for ActivityPub by default, and for JRD when fetching WebFinger', LIMIT, async () => {
    const p = await peer((_req, res) => json(res, doc, 'application/jrd+json'));
    const c = client();
    const { value } = await c.getJson(p.origin + '/.well-known/webfinger?resource=acct:a@peer.example', Doc, { jrd: true });
    assert.deepEqual(value, doc);
    await rejectsWith(c.getJson(p.origin + '/actor', Doc), 'unsupported', 'bad_content_type');
    assert.equal(p.seen[0]?.headers.accept, 'application/jrd+json, application/json');
    assert.equal(p.seen[1]?.headers.accept, 'application/activity+json, application/ld+json; profile="https://www.w3.org/ns/activitystreams"');
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  it('reads delta-seconds and HTTP dates, defaults to a minute and caps at a day', LIMIT, () => {
    assert.equal(parseRetryAfter('30', now), 30_000);
    assert.equal(parseRetryAfter('Thu, 01 Jan 2026 00:02:00 GMT', now), 120_000);
    assert.equal(parseRetryAfter('Wed, 31 Dec 2025 00:00:00 GMT', now), 0);
    assert.equal(parseRetryAfter(undefined, now), 60_000);
    assert.equal(parseRetryAfter('soon', now), 60_000);
    assert.equal(parseRetryAfter('-5', now), 60_000);
    assert.equal(parseRetryAfter('999999999', now), 86_400_000);
  });
});
