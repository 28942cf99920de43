// Per-route body limits: only the routes that take files (media upload, profile avatar and header) accept a multipart
// body up to MAX_MULTIPART_BYTES; every other route, and every JSON or form body, has the small limits, refused from
// the Content-Length before the body is read.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { limitFor } from '../../src/http/body.js';
import { ftyp, uploadStreamed } from '../support/media.js';
import { createMembers } from '../support/members.js';
import { rawExchange } from '../support/raw-http.js';
import { startTestServer, type TestServer } from '../support/server.js';

const MiB = 1024 * 1024;

function head(method: string, path: string, token: string, type: string, length: number): string {
  return `${method} ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: ${type}\r\nContent-Length: ${length}\r\n\r\n`;
}

describe('per-route body limits', () => {
  let s: TestServer;
  let token: string;

  before(async () => {
    s = await startTestServer();
    token = (await createMembers(s, ['bea'])).token['bea']!;
  });
  after(() => s?.stop());

  it('gives the multipart ceiling to the upload routes only, and no route more than the JSON limit otherwise', () => {
    const { limits } = s.app.config;
    const takingFiles = s.app.routes.filter((r) => r.takesFiles).map((r) => `${r.method} ${r.path}`);
    assert.deepEqual(takingFiles.sort(), ['PATCH /api/v1/accounts/update_credentials', 'POST /api/v1/media', 'POST /api/v2/media']);
    for (const r of s.app.routes.filter((x) => x.body)) {
      for (const kind of ['json', 'form', 'multipart'] as const) {
        const limit = limitFor(kind, limits, r);
        const allowed = kind === 'multipart' && r.takesFiles ? limits.multipartBytes : limits.bodyBytes;
        assert.ok(limit <= allowed, `${r.method} ${r.path} takes ${kind} bodies of ${limit} bytes`);
      }
    }
  });

  it('refuses a 2 MiB multipart body to POST /api/v1/statuses with 413 from its headers', async () => {
    const started = performance.now();
    // Answered at once; the connection stays open to read and drop the body, so that a client still sending reads it.
    const answer = await rawExchange(s.url, head('POST', '/api/v1/statuses', token, 'multipart/form-data; boundary=zz', 2 * MiB), {
      untilAnswered: true,
      timeoutMs: 3_000,
    });
    assert.match(answer, /^HTTP\/1\.1 413 /);
    assert.match(answer, /"error_description":"The body is limited to 1048576 bytes"\}$/);
    assert.ok(performance.now() - started < 1_000, 'refused at once, without waiting for the body');
  });

  it('refuses a 2 MiB JSON body to the upload route: JSON has the JSON limit there too', async () => {
    const answer = await rawExchange(s.url, head('POST', '/api/v2/media', token, 'application/json', 2 * MiB), { untilAnswered: true, timeoutMs: 3_000 });
    assert.match(answer, /^HTTP\/1\.1 413 /);
  });

  it('still takes a large file on the upload route', async () => {
    const r = await uploadStreamed(s.url, token, { head: ftyp('isom', ['isom', 'mp41']), size: 24 * MiB });
    // Taken (processed after the answer, as Mastodon's 202).
    assert.equal(r.status, 202, JSON.stringify(r.body));
    assert.equal(r.body.type, 'video');
  });

  it('still takes a multipart body over the JSON limit on update_credentials', async () => {
    const form = new FormData();
    form.set('display_name', 'Bea');
    // Unknown fields are ignored, as Mastodon does; this file part only makes the body larger than MAX_BODY_BYTES
    // (a text field could not: text fields are capped at 1 MiB together).
    form.set('padding', new Blob([new Uint8Array(2 * MiB)]), 'padding.bin');
    const r = await fetch(`${s.url}/api/v1/accounts/update_credentials`, { method: 'PATCH', headers: { Authorization: `Bearer ${token}` }, body: form });
    assert.equal(r.status, 200, await r.text());
  });
});
