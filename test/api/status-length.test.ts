// The character limit as Mastodon's StatusLengthValidator applies it, on posting and on editing: a link counts as 23
// characters (what the instance advertises as characters_reserved_per_url), a remote mention as its local part,
// text in grapheme clusters, the content warning with the text.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, type Json } from '../support/api.js';
import { createMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';

const LIMIT_ERROR = 'Validation failed: Text character limit of 500 exceeded';

describe('status length', () => {
  let s: TestServer;
  let token = '';

  const call = (method: string, path: string, body: unknown) => api(s.url, token, method, path, body);
  const post = (body: unknown) => call('POST', '/api/v1/statuses', body);

  before(async () => {
    s = await startTestServer();
    token = (await createMembers(s, ['lena'])).token['lena']!;
  });
  after(() => s.stop());

  it('advertises 500 characters with 23 reserved per URL', async () => {
    const instance = (await (await fetch(`${s.url}/api/v2/instance`)).json()) as Json;
    assert.deepEqual(instance.configuration.statuses, { max_characters: 500, max_media_attachments: 4, characters_reserved_per_url: 23 });
  });

  it('counts a 200-character link as 23', async () => {
    const url = `https://example.com/${'a'.repeat(180)}`;
    assert.equal(url.length, 200);
    // 476 + 1 + 23 = 500: fits, though the text is 677 code points long.
    const fits = await post({ status: `${'x'.repeat(476)} ${url}` });
    assert.equal(fits.status, 200, JSON.stringify(fits.body));
    assert.ok(fits.body.content.includes(`href="${url}"`));
    const over = await post({ status: `${'x'.repeat(477)} ${url}` });
    assert.equal(over.status, 422);
    assert.equal(over.body.error, LIMIT_ERROR);
  });

  it('counts a remote mention as its local part', async () => {
    const mention = '@someone@a-very-long-server-name-that-does-not-exist.invalid';
    // '@someone' is 8: 491 + 1 + 8 = 500.
    const fits = await post({ status: `${'x'.repeat(491)} ${mention}` });
    assert.equal(fits.status, 200, JSON.stringify(fits.body));
    assert.equal((await post({ status: `${'x'.repeat(492)} ${mention}` })).body.error, LIMIT_ERROR);
  });

  it('counts an emoji sequence as one character, and the content warning with the text', async () => {
    const family = '👨‍👩‍👧‍👦'; // 7 code points, 11 UTF-16 units, one grapheme
    assert.equal((await post({ status: family.repeat(500) })).status, 200);
    assert.equal((await post({ status: family.repeat(501) })).body.error, LIMIT_ERROR);
    assert.equal((await post({ status: 'x'.repeat(400), spoiler_text: 'y'.repeat(100) })).status, 200);
    const over = await post({ status: 'x'.repeat(400), spoiler_text: 'y'.repeat(101) });
    assert.equal(over.status, 422);
    assert.equal(over.body.error, LIMIT_ERROR);
  });

  it('applies the same count to edits, changing nothing when over', async () => {
    const url = `https://example.com/${'b'.repeat(300)}`;
    const p = (await post({ status: 'short' })).body;
    const fits = await call('PUT', `/api/v1/statuses/${p.id}`, { status: `${'x'.repeat(476)} ${url}` });
    assert.equal(fits.status, 200, JSON.stringify(fits.body));
    const over = await call('PUT', `/api/v1/statuses/${p.id}`, { status: `${'x'.repeat(470)} ${url}`, spoiler_text: 'z'.repeat(7) });
    assert.equal(over.status, 422);
    assert.equal(over.body.error, LIMIT_ERROR);
    const now = (await (await fetch(`${s.url}/api/v1/statuses/${p.id}`)).json()) as Json;
    assert.equal(now.spoiler_text, '');
    assert.ok(now.content.includes(url));
  });
});
