// Property-based tests of the edge (fast-check, fixed seed, bounded runs): the JSON, form, query and multipart
// decoders and the bearer parser fed generated hostile input (random bytes, invalid UTF-8, deep nesting, huge
// counts, hostile part names). Each case is a real request to the real application: the answer is a success or a
// 4xx with a JSON error, never a 5xx, and the server still answers afterwards. A failure prints its seed and path
// (fast-check's report); FC_SEED replays another seed.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { pino } from 'pino';
import { loadConfig } from '../../config/schema.js';
import { json } from '../../src/http/respond.js';
import { HttpServer } from '../../src/http/server.js';
import { PUBLIC } from '../../src/http/types.js';
import { errorPage } from '../../src/web/layout.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';

const SEED = Number(process.env['FC_SEED'] ?? 20261202);
const RUNS = Number(process.env['FC_RUNS'] ?? 60);
const params = { seed: SEED, numRuns: RUNS, endOnFailure: true, includeErrorInReport: true } as const;

/** Names a hostile client would choose: brackets, prototype keys, NULs, empty, long, non-ASCII. */
const hostileName = fc.oneof(
  fc.constantFrom('', '[]', 'a[', 'a]', 'a[][', '__proto__', 'a[__proto__]', 'constructor[prototype]', 'a\0b', 'status', 'media_ids[]', 'poll[options][]'),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 10 }),
  fc.array(fc.constantFrom('a', '[', ']', 'b', '0'), { maxLength: 30 }).map((cs) => cs.join('')),
);
const bytes = fc.uint8Array({ maxLength: 2048 });
/** Byte sequences that are not UTF-8: lone continuation bytes, truncated sequences, overlongs, surrogates. */
const invalidUtf8 = fc
  .array(fc.constantFrom([0x80], [0xc0, 0xaf], [0xe0, 0x80], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xff], [0x22], [0x7b], [0x61]), {
    maxLength: 64,
  })
  .map((xs) => Uint8Array.from(xs.flat()));
const deepJson = fc.tuple(fc.integer({ min: 1, max: 20_000 }), fc.constantFrom('[', '{"a":')).map(([n, open]) => {
  const close = open === '[' ? ']' : '}';
  return `${open.repeat(n)}1${close.repeat(n)}`;
});
const hugeCounts = fc
  .integer({ min: 1000, max: 20_000 })
  .map((n) => JSON.stringify({ status: 'x', media_ids: Array.from({ length: n }, (_, i) => String(i)) }));

function multipartOf(parts: readonly { name: string | null; filename: string | null; type: string | null; value: Uint8Array }[], boundary: string): Buffer {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    let disposition = 'form-data';
    if (p.name !== null) disposition += `; name="${p.name.replaceAll('"', '%22').replaceAll('\r', '').replaceAll('\n', '')}"`;
    if (p.filename !== null) disposition += `; filename="${p.filename.replaceAll('"', '').replaceAll('\r', '').replaceAll('\n', '')}"`;
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${p.type ? `Content-Type: ${p.type}\r\n` : ''}\r\n`, 'utf8'));
    chunks.push(Buffer.from(p.value), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}
const multipartBody = fc.record({
  boundary: fc.oneof(fc.constant('XyZ'), fc.stringMatching(/^[A-Za-z0-9'()+_,./:=?-]{1,80}$/)),
  parts: fc.array(
    fc.record({
      name: fc.option(hostileName, { nil: null }),
      filename: fc.option(fc.oneof(fc.constant(''), fc.string({ maxLength: 30 })), { nil: null }),
      type: fc.option(fc.constantFrom('image/png', 'application/octet-stream', 'text/plain; charset=utf-16', 'text/plain; charset=x-unknown', ''), {
        nil: null,
      }),
      value: fc.oneof(bytes, invalidUtf8),
    }),
    { maxLength: 12 },
  ),
  truncate: fc.option(fc.nat(), { nil: null }),
});

describe('the edge, fed generated hostile input', () => {
  let s: TestServer;
  let m: LocalMembers;

  before(async () => {
    s = await startTestServer();
    m = await createMembers(s, ['ann']);
  });
  after(() => s.stop());

  /** A request's answer must be a success or a 4xx with a JSON error: anything else fails the property. */
  async function answered(path: string, init: RequestInit & { headers?: Record<string, string> }): Promise<number> {
    const r = await fetch(s.url + path, init);
    const text = await r.text();
    assert.ok(r.status < 500, `${init.method ?? 'GET'} ${path}: ${r.status} ${text.slice(0, 200)}`);
    if (r.status >= 400) assert.equal(typeof (JSON.parse(text) as { error?: unknown }).error, 'string', text.slice(0, 200));
    return r.status;
  }
  const withToken = (h: Record<string, string> = {}) => ({ ...h, Authorization: `Bearer ${m.token['ann']}` });

  async function stillServing(): Promise<void> {
    assert.equal((await fetch(`${s.url}/health`)).status, 200);
  }

  it('JSON bodies: random bytes, invalid UTF-8, random values, deep nesting, huge counts', async () => {
    const body = fc.oneof(
      bytes.map((b) => Buffer.from(b)),
      invalidUtf8.map((b) => Buffer.from(b)),
      fc.jsonValue().map((v) => JSON.stringify(v)),
      fc.dictionary(hostileName, fc.jsonValue({ maxDepth: 3 })).map((v) => JSON.stringify(v)),
      deepJson,
      hugeCounts,
    );
    await fc.assert(
      fc.asyncProperty(body, fc.constantFrom('/api/v1/statuses', '/api/v1/apps', '/oauth/token', '/api/v1/lists'), async (data, path) => {
        await answered(path, { method: 'POST', headers: withToken({ 'Content-Type': 'application/json' }), body: data });
      }),
      params,
    );
    await stillServing();
  });

  it('form bodies: hostile keys and values, invalid UTF-8, thousands of pairs', async () => {
    const pairs = fc.array(fc.tuple(hostileName, fc.string({ maxLength: 50 })), { maxLength: 40 }).map((ps) => new URLSearchParams(ps).toString());
    const body = fc.oneof(
      pairs,
      invalidUtf8.map((b) => Buffer.from(b)),
      fc.integer({ min: 500, max: 5000 }).map((n) => Array.from({ length: n }, (_, i) => `a[${i % 7}][]=${i}`).join('&')),
      fc.integer({ min: 1, max: 200 }).map((n) => `${'a'}${'[b]'.repeat(n)}=1`),
    );
    await fc.assert(
      fc.asyncProperty(body, fc.constantFrom('/api/v1/statuses', '/api/v1/apps', '/api/v1/accounts/update_credentials'), async (data, path) => {
        const method = path.endsWith('update_credentials') ? 'PATCH' : 'POST';
        await answered(path, { method, headers: withToken({ 'Content-Type': 'application/x-www-form-urlencoded' }), body: data });
      }),
      params,
    );
    await stillServing();
  });

  it('query strings: hostile keys, repeated and nested parameters, percent-encoding gone wrong', async () => {
    const query = fc.oneof(
      fc.array(fc.tuple(hostileName, fc.string({ maxLength: 30 })), { maxLength: 30 }).map((ps) => new URLSearchParams(ps).toString()),
      fc
        .array(fc.constantFrom('%', '%zz', '%C0%AF', '%ED%A0%80', '&', '=', '[', ']', 'max_id', 'limit', '-1', '99999999999999999999', 'a'), { maxLength: 40 })
        .map((xs) => xs.join('')),
    );
    const path = fc.constantFrom(
      '/api/v1/timelines/public',
      '/api/v1/timelines/home',
      '/api/v1/notifications',
      '/api/v2/search',
      '/api/v1/accounts/relationships',
      '/api/v1/statuses',
    );
    await fc.assert(
      fc.asyncProperty(path, query, async (p, q) => {
        await answered(`${p}?${q}`, { headers: withToken() });
      }),
      params,
    );
    await stillServing();
  });

  it('multipart bodies: hostile part names and file names, odd charsets, long boundaries, bodies cut short', async () => {
    await fc.assert(
      fc.asyncProperty(multipartBody, fc.constantFrom('/api/v1/statuses', '/api/v2/media', '/api/v1/apps', '/oauth/token'), async (b, path) => {
        let data = multipartOf(b.parts, b.boundary);
        if (b.truncate !== null) data = data.subarray(0, b.truncate % (data.length + 1));
        await answered(path, { method: 'POST', headers: withToken({ 'Content-Type': `multipart/form-data; boundary=${b.boundary}` }), body: data });
      }),
      params,
    );
    await stillServing();
  });

  it('bearer tokens: any header value is refused with 401 (or 400), never served or failed', async () => {
    const header = fc.oneof(
      fc.string({ maxLength: 600 }),
      fc.string({ maxLength: 80 }).map((t) => `Bearer ${t}`),
      fc.string({ maxLength: 80 }).map((t) => `bearer  ${t}`),
      fc.constantFrom('Bearer', 'Bearer ', 'Basic YTpi', `Bearer ${'x'.repeat(513)}`, 'Bearer a b', 'Bearer\ta'),
    );
    await fc.assert(
      fc.asyncProperty(
        // fetch sends header values as bytes: what it cannot send (CR, LF, NUL, code points over 255) no client can.
        header.filter((h) => [...h].every((c) => c.length === 1 && c.charCodeAt(0) > 0 && c.charCodeAt(0) <= 0xff && c !== '\r' && c !== '\n')),
        async (value) => {
          const status = await answered('/api/v1/accounts/verify_credentials', { headers: { Authorization: value } });
          assert.ok(status === 401 || status === 400, `${JSON.stringify(value)}: ${status}`);
        },
      ),
      params,
    );
    await stillServing();
  });
});

describe('the decoders agree', () => {
  let server: HttpServer;
  let base: string;

  before(async () => {
    server = new HttpServer({
      config: loadConfig({ PORT: '0', LOG_LEVEL: 'silent' }),
      log: pino({ level: 'silent' }),
      errorPage: errorPage('Stoa'),
      routes: [{ method: 'POST', path: '/api/v1/echo', auth: PUBLIC, body: true, handler: (req) => json(200, req.body) }],
    });
    base = `http://127.0.0.1:${await server.listen()}`;
  });
  after(() => server.stopAccepting());

  it('the same fields sent as JSON, as a form and as multipart arrive as the same parameters', async () => {
    // Keys that would reach Object.prototype are dropped from forms and multipart on purpose (http/params.ts).
    const name = fc.stringMatching(/^[a-z_]{1,12}$/).filter((k) => !['constructor', 'prototype'].includes(k));
    const fields = fc.dictionary(name, fc.string({ unit: 'grapheme', maxLength: 40 }), { maxKeys: 12 });
    const echo = async (body: string | Buffer, type: string) => {
      const r = await fetch(`${base}/api/v1/echo`, { method: 'POST', headers: { 'Content-Type': type }, body });
      assert.equal(r.status, 200);
      return r.json();
    };
    await fc.assert(
      fc.asyncProperty(fields, async (f) => {
        const expected = JSON.parse(JSON.stringify(f));
        assert.deepEqual(await echo(JSON.stringify(f), 'application/json'), expected);
        assert.deepEqual(await echo(new URLSearchParams(f).toString(), 'application/x-www-form-urlencoded'), expected);
        const parts = Object.entries(f).map(([name, value]) => ({ name, filename: null, type: null, value: Buffer.from(value) }));
        assert.deepEqual(await echo(multipartOf(parts, 'b0undary'), 'multipart/form-data; boundary=b0undary'), expected);
      }),
      params,
    );
  });
});
