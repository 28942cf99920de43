// Malformed requests over raw sockets, one row per case, each asserting exactly what a client sees. Requests uWS
// parses reach our front end, which answers them (400, 431, 501); the rest only the native binary sees, and it
// answers none of them: it closes at once, or holds the connection until its idle timeout (about 10 s) and then
// closes. Those rows are the binary's behaviour, measured; docs/decisions/0043-input-hardening.md has the same table.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createMembers } from '../support/members.js';
import { rawExchange } from '../support/raw-http.js';
import { startTestServer, type TestServer } from '../support/server.js';

const H = 'Host: x\r\nConnection: close\r\n';
const get = (extra: string, line = 'GET /health HTTP/1.1') => `${line}\r\n${H}${extra}\r\n`;
const post = (framing: string) => `POST /api/v1/statuses HTTP/1.1\r\n${H}Content-Type: application/json\r\n${framing}\r\n\r\n{}`;
const headerLines = (n: number) => Array.from({ length: n }, (_, i) => `X-Pad-${i}: v\r\n`).join('');

type Outcome = { readonly status: number } | 'closed at once' | 'held, then closed';

interface Row {
  readonly name: string;
  readonly request: string;
  readonly outcome: Outcome;
}

const ROWS: readonly Row[] = [
  // Seen by our front end: answered.
  { name: 'TRACE (parsed by uWS, not implemented)', request: get('', 'TRACE /health HTTP/1.1'), outcome: { status: 501 } },
  { name: 'CONNECT (parsed by uWS, not implemented)', request: get('', 'CONNECT /health HTTP/1.1'), outcome: { status: 501 } },
  { name: 'a header value of 9 KiB', request: get(`X-Big: ${'v'.repeat(9 * 1024)}\r\n`), outcome: { status: 431 } },
  { name: 'a header name of 20 KiB', request: get(`${'X'.repeat(20 * 1024)}: v\r\n`), outcome: { status: 431 } },
  { name: '40 headers of 1 KiB (over 32 KiB in all)', request: get(headerLines(40).replaceAll(': v', `: ${'v'.repeat(1024)}`)), outcome: { status: 431 } },
  { name: 'two Content-Length headers', request: post('Content-Length: 2\r\nContent-Length: 2'), outcome: { status: 400 } },
  { name: 'two Authorization headers', request: get('Authorization: Bearer a\r\nAuthorization: Bearer b\r\n'), outcome: { status: 400 } },
  { name: '48 header lines (the most uWS reads)', request: get(headerLines(46)), outcome: { status: 200 } },
  { name: 'a tab inside a header value (allowed)', request: get('X-A: a\tb\r\n'), outcome: { status: 200 } },
  // Seen only by the native binary, which closes the connection at once without an answer.
  { name: 'an unknown method', request: get('', 'BREW /health HTTP/1.1'), outcome: 'closed at once' },
  { name: 'a WebDAV method', request: get('', 'PROPFIND /health HTTP/1.1'), outcome: 'closed at once' },
  { name: 'a lower-case method', request: get('', 'get /health HTTP/1.1'), outcome: 'closed at once' },
  { name: 'Content-Length not a number', request: post('Content-Length: abc'), outcome: 'closed at once' },
  { name: 'Content-Length negative', request: post('Content-Length: -1'), outcome: 'closed at once' },
  { name: 'Content-Length with a sign', request: post('Content-Length: +2'), outcome: 'closed at once' },
  { name: 'Content-Length with two values', request: post('Content-Length: 2, 2'), outcome: 'closed at once' },
  { name: 'Content-Length of 20 digits', request: post('Content-Length: 99999999999999999999'), outcome: 'closed at once' },
  { name: 'Transfer-Encoding and Content-Length together', request: post('Transfer-Encoding: chunked\r\nContent-Length: 2'), outcome: 'closed at once' },
  { name: 'Transfer-Encoding other than chunked', request: post('Transfer-Encoding: gzip'), outcome: 'closed at once' },
  { name: 'no Host header', request: 'GET /health HTTP/1.1\r\nConnection: close\r\n\r\n', outcome: 'closed at once' },
  { name: 'a header block over uWS buffer (300 KB)', request: get(`X-Huge: ${'v'.repeat(300_000)}\r\n`), outcome: 'closed at once' },
  // Seen only by the native binary, which holds the connection, unanswered, until its idle timeout.
  { name: '49 header lines', request: get(headerLines(47)), outcome: 'held, then closed' },
  { name: 'NUL in a header value', request: get('X-A: a\0b\r\n'), outcome: 'held, then closed' },
  { name: 'a control character in a header value', request: get('X-A: a\x01b\r\n'), outcome: 'held, then closed' },
  { name: 'bare LF inside a header value', request: get('X-A: a\nb\r\n'), outcome: 'held, then closed' },
  { name: 'bare LF line endings', request: 'GET /health HTTP/1.1\nHost: x\nConnection: close\n\n', outcome: 'held, then closed' },
  { name: 'bare CR inside a header value', request: get('X-A: a\rb\r\n'), outcome: 'held, then closed' },
  { name: 'a space before the colon', request: get('X-A : b\r\n'), outcome: 'held, then closed' },
  { name: 'an underscore in a header name', request: get('X_A: b\r\n'), outcome: 'held, then closed' },
  { name: 'a header line without a colon', request: get('X-A b\r\n'), outcome: 'held, then closed' },
  { name: 'an obsolete folded header line', request: get('X-A: a\r\n b\r\n'), outcome: 'held, then closed' },
  { name: 'an HTTP/1.0 request line', request: 'GET /health HTTP/1.0\r\nHost: x\r\n\r\n', outcome: 'held, then closed' },
  { name: 'an HTTP/2.0 request line', request: get('', 'GET /health HTTP/2.0'), outcome: 'held, then closed' },
  { name: 'a request line without a version', request: 'GET /health\r\n\r\n', outcome: 'held, then closed' },
  { name: 'an absolute-form target', request: get('', 'GET http://x/health HTTP/1.1'), outcome: 'held, then closed' },
  { name: 'a control character in the path', request: get('', 'GET /hea\x01lth HTTP/1.1'), outcome: 'held, then closed' },
];

/** uWS closes an idle HTTP connection after 10 s, checked on a 4 s timer tick. */
const HELD_AT_LEAST_MS = 6_000;
const HELD_AT_MOST_MS = 15_000;

describe('malformed requests', () => {
  let s: TestServer;
  let token: string;

  before(async () => {
    s = await startTestServer();
    token = (await createMembers(s, ['cy'])).token['cy']!;
  });
  after(() => s?.stop());

  // All rows at once: the held ones take one idle timeout together, not one each.
  it('answers what the front end sees, and the native binary drops the rest as measured', async () => {
    const outcomes = await Promise.all(
      ROWS.map(async (row) => {
        const started = performance.now();
        const answer = await rawExchange(s.url, row.request, { requireClose: true, timeoutMs: HELD_AT_MOST_MS + 1_000 });
        return { row, answer, ms: performance.now() - started };
      }),
    );
    for (const { row, answer, ms } of outcomes) {
      const o = row.outcome;
      if (o === 'closed at once') {
        assert.equal(answer, '', `${row.name}: no answer`);
        assert.ok(ms < 1_000, `${row.name}: closed after ${Math.round(ms)} ms`);
      } else if (o === 'held, then closed') {
        assert.equal(answer, '', `${row.name}: no answer`);
        assert.ok(ms >= HELD_AT_LEAST_MS && ms <= HELD_AT_MOST_MS, `${row.name}: closed after ${Math.round(ms)} ms`);
      } else {
        assert.match(answer, new RegExp(`^HTTP/1\\.1 ${o.status} `), `${row.name}: ${answer.slice(0, 200)}`);
        assert.ok(ms < 1_000, `${row.name}: answered after ${Math.round(ms)} ms`);
        if (o.status !== 200) assert.match(answer, /\r\n\r\n\{"error":"[^"]+"/, `${row.name}: a JSON error`);
      }
    }
  });

  it('answers 501 in JSON for a method it does not implement', async () => {
    const answer = await rawExchange(s.url, get('', 'TRACE /api/v1/instance HTTP/1.1'), { requireClose: true });
    assert.match(answer, /^HTTP\/1\.1 501 /);
    assert.match(answer, /\{"error":"Not implemented","error_description":"The method TRACE is not implemented by this server"\}$/);
  });

  it('receives a bearer token with trailing bytes as the bare token: uWS strips them before we see the header', async () => {
    for (const trailing of ['é', '\x80', '\t']) {
      const answer = await rawExchange(s.url, `GET /api/v1/accounts/verify_credentials HTTP/1.1\r\n${H}Authorization: Bearer ${token}${trailing}\r\n\r\n`, {
        requireClose: true,
      });
      assert.match(answer, /^HTTP\/1\.1 200 /, JSON.stringify(trailing));
    }
    const inside = await rawExchange(s.url, `GET /api/v1/accounts/verify_credentials HTTP/1.1\r\n${H}Authorization: Bearer é${token}\r\n\r\n`, {
      requireClose: true,
    });
    assert.match(inside, /^HTTP\/1\.1 401 /, 'a byte inside the token is kept, and the token refused');
  });
});
