// Malformed multipart bodies against the real application. A part without a usable name once ended the process
// (busboy hands its name over as undefined, and the throw happened on uWS's stack); each shape here is a 400 with a
// JSON error, nothing is stored, no temporary file is left, and the server goes on answering.
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { api, RawBody } from '../support/api.js';
import { png } from '../support/media.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startServerWithDataDir, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

const B = 'XyZ';
const TYPE = `multipart/form-data; boundary=${B}`;

/** One part: its Content-Disposition parameters as written, an optional Content-Type, and its bytes. */
function part(disposition: string, value: string | Buffer, type?: string): Buffer {
  const head = `--${B}\r\nContent-Disposition: form-data${disposition}\r\n${type ? `Content-Type: ${type}\r\n` : ''}\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), Buffer.isBuffer(value) ? value : Buffer.from(value), Buffer.from('\r\n')]);
}
const closing = Buffer.from(`--${B}--\r\n`);
const body = (...parts: Buffer[]) => Buffer.concat([...parts, closing]);

// The issue's reproduction, and the same defect's two other forms.
const NAMELESS: Readonly<Record<string, Buffer>> = {
  'a part without a name': body(part('', 'v')),
  'a part with name=""': body(part('; name=""', 'v')),
  'a file part without a name': body(part('; filename="a.png"', png(2, 2), 'image/png')),
};

describe('malformed multipart bodies', () => {
  let s: TestServer & { readonly dataDir: string };
  let m: LocalMembers;
  let dataDir: string;

  before(async () => {
    s = await startServerWithDataDir();
    dataDir = s.dataDir;
    m = await createMembers(s, ['ann']);
  });
  after(() => s.stop());

  const post = (p: string, data: Buffer, token?: string, type = TYPE) => api(s.url, token, 'POST', p, new RawBody(data, type));

  async function assertStillServing(): Promise<void> {
    const health = await fetch(`${s.url}/health`);
    assert.equal(health.status, 200);
  }

  for (const [shape, data] of Object.entries(NAMELESS)) {
    it(`${shape}: a 400 on every route that reads a body, with or without a token, and the server answers on`, async () => {
      const routes: [string, string | undefined][] = [
        ['/oauth/token', undefined],
        ['/api/v1/apps', undefined],
        ['/auth/sign_in', undefined],
        ['/@ann/load_older', undefined],
        ['/inbox', undefined],
        ['/users/ann/inbox', undefined],
        ['/api/v1/statuses', m.token['ann']],
        ['/api/v2/media', m.token['ann']],
        ['/api/v1/media', m.token['ann']],
        ['/api/v1/accounts/update_credentials', m.token['ann']],
      ];
      for (const [route, token] of routes) {
        const r = await fetch(s.url + route, {
          method: route.endsWith('update_credentials') ? 'PATCH' : 'POST',
          headers: { 'Content-Type': TYPE, ...(token ? { Authorization: `Bearer ${token}` } : {}) },
          body: data,
        });
        assert.equal(r.status, 400, `${route}: ${r.status}`);
        if (route.startsWith('/api') || route.startsWith('/oauth') || route.endsWith('/inbox')) {
          assert.match(((await r.json()) as { error: string }).error, /multipart \(a part without a name\)/, route);
        } else {
          await r.body?.cancel();
        }
        await assertStillServing();
      }
    });
  }

  const tooManyParts = Buffer.concat([...Array.from({ length: 10_000 }, (_, i) => part(`; name="f${i}"`, 'x')), closing]);
  const SHAPES: readonly { name: string; data: Buffer; type?: string; route?: string; error: RegExp; status?: number }[] = [
    { name: 'no boundary', data: body(part('; name="status"', 'hi')), type: 'multipart/form-data', error: /no boundary/ },
    {
      name: 'a boundary over 70 characters',
      data: body(part('; name="status"', 'hi')),
      type: `multipart/form-data; boundary=${'b'.repeat(71)}`,
      error: /boundary/,
    },
    { name: 'an unterminated part', data: Buffer.from(`--${B}\r\nContent-Disposition: form-data; name="status"\r\n\r\nhello`), error: /Unexpected end/ },
    { name: 'no closing delimiter', data: part('; name="status"', 'hi'), error: /Unexpected end/ },
    { name: 'a header block over the limit', data: body(part(`; name="status"; x="${'h'.repeat(20_000)}"`, 'hi')), error: /malformed part headers/ },
    { name: '10,000 tiny parts', data: tooManyParts, error: /too many parts/, status: 400 },
    { name: 'a file part where the route takes no files', data: body(part('; name="status"; filename="a.txt"', 'hi', 'text/plain')), error: /takes no files/ },
    // A raw NUL in a part's header block is refused by busboy's header parser; a percent-encoded one reaches ours.
    { name: 'a NUL in a part name', data: body(part('; name="sta\0tus"', 'hi')), error: /malformed part headers/ },
    {
      name: 'a NUL in a file name',
      data: body(part('; name="file"; filename="a\0.png"', png(2, 2), 'image/png')),
      route: '/api/v2/media',
      error: /malformed part headers/,
    },
    { name: 'a percent-encoded NUL in name*', data: body(part(`; name*=UTF-8''sta%00tus`, 'hi')), error: /without a name/ },
    {
      name: 'a percent-encoded NUL in filename*',
      data: body(part(`; name="file"; filename*=UTF-8''a%00.png`, png(2, 2), 'image/png')),
      route: '/api/v2/media',
      error: /NUL/,
    },
  ];
  for (const c of SHAPES) {
    it(`${c.name}: 400 with a JSON error`, async () => {
      const r = await post(c.route ?? '/api/v1/statuses', c.data, m.token['ann'], c.type ?? TYPE);
      assert.equal(r.status, c.status ?? 400, r.text);
      assert.match(r.body.error, c.error);
      await assertStillServing();
    });
  }

  it('a filename* in another encoding is read as the client wrote it', async () => {
    const name = `; name="file"; filename*=UTF-8''%E2%82%AC%20${encodeURIComponent('ü')}.png`;
    const r = await post('/api/v2/media', body(part(name, png(4, 4), 'image/png')), m.token['ann']);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.type, 'image');
    const latin = await post('/api/v2/media', body(part(`; name="file"; filename*=ISO-8859-1''caf%E9.png`, png(4, 4), 'image/png')), m.token['ann']);
    assert.equal(latin.status, 200, latin.text);
  });

  it('nothing was stored and no temporary file is left', async () => {
    const statuses = await api(s.url, m.token['ann'], 'GET', `/api/v1/accounts/${m.id['ann']}/statuses`);
    assert.deepEqual(statuses.body, []);
    // Two uploads above were accepted; every refused body's files are gone.
    const { rows } = await s.app.db.pool.query<{ n: string }>('SELECT count(*)::text AS n FROM media_attachments');
    assert.equal(rows[0]!.n, '2');
    await eventually(async () => assert.deepEqual(await readdir(path.join(dataDir, 'tmp')).catch(() => []), []));
  });
});
