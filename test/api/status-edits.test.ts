// Editing statuses over real HTTP: the author edits text, content warning, sensitivity and language; the status
// keeps its id, visibility and thread; history lists every version; source gives the text back; new mentions are
// notified; nobody else can edit; validation is that of posting.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- API JSON, asserted field by field
type Json = any;

describe('editing statuses', () => {
  let s: TestServer;
  const id: Record<string, string> = {};
  const token: Record<string, string> = {};

  async function call(who: string | undefined, method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> {
    const headers: Record<string, string> = who ? { Authorization: `Bearer ${token[who]}` } : {};
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const res = await fetch(s.url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  }

  before(async () => {
    s = await startTestServer();
    const members = await createMembers(s, ['eli', 'fay']);
    Object.assign(id, members.id);
    Object.assign(token, members.token);
  });
  after(() => s.stop());

  it('replaces the text and keeps every version, the id, visibility and thread', async () => {
    const parent = (await call('eli', 'POST', '/api/v1/statuses', { status: 'parent' })).body;
    const post = (await call('eli', 'POST', '/api/v1/statuses', { status: 'v1 #old', visibility: 'unlisted', in_reply_to_id: parent.id })).body;
    assert.equal(post.edited_at, null);
    const edited = await call('eli', 'PUT', `/api/v1/statuses/${post.id}`, { status: 'v2 #new <b>bold</b>', spoiler_text: 'careful', language: 'de' });
    assert.equal(edited.status, 200, JSON.stringify(edited.body));
    assert.equal(edited.body.id, post.id);
    assert.equal(edited.body.visibility, 'unlisted');
    assert.equal(edited.body.in_reply_to_id, parent.id);
    assert.match(edited.body.content, /v2/);
    assert.ok(!edited.body.content.includes('<b>'));
    assert.equal(edited.body.spoiler_text, 'careful');
    assert.equal(edited.body.sensitive, true);
    assert.equal(edited.body.language, 'de');
    assert.deepEqual(edited.body.tags.map((t: Json) => t.name), ['new']);
    assert.ok(Date.parse(edited.body.edited_at) >= Date.parse(post.created_at));
    await call('eli', 'PUT', `/api/v1/statuses/${post.id}`, { status: 'v3' });
    const history = (await call(undefined, 'GET', `/api/v1/statuses/${post.id}/history`)).body;
    assert.deepEqual(history.map((v: Json) => v.content.match(/v\d/)![0]), ['v1', 'v2', 'v3']);
    assert.equal(history[1].spoiler_text, 'careful');
    assert.equal(history[0].account.id, id['eli']);
    assert.deepEqual((await call('eli', 'GET', `/api/v1/statuses/${post.id}/source`)).body, { id: post.id, text: 'v3', spoiler_text: 'careful' });
    const neverEdited = (await call(undefined, 'GET', `/api/v1/statuses/${parent.id}/history`)).body;
    assert.equal(neverEdited.length, 1);
  });

  it('notifies accounts newly mentioned by an edit, once', async () => {
    const post = (await call('eli', 'POST', '/api/v1/statuses', { status: 'no mention yet' })).body;
    await call('eli', 'PUT', `/api/v1/statuses/${post.id}`, { status: 'now @fay' });
    await call('eli', 'PUT', `/api/v1/statuses/${post.id}`, { status: 'still @fay' });
    const mentions = (await call('fay', 'GET', '/api/v1/notifications?types[]=mention')).body.filter((n: Json) => n.status.id === post.id);
    assert.equal(mentions.length, 1);
  });

  it("refuses edits by anyone but the author, and invalid edits, changing nothing", async () => {
    const post = (await call('eli', 'POST', '/api/v1/statuses', { status: 'mine' })).body;
    assert.equal((await call('fay', 'PUT', `/api/v1/statuses/${post.id}`, { status: 'hijack' })).status, 404);
    assert.equal((await call(undefined, 'PUT', `/api/v1/statuses/${post.id}`, { status: 'anon' })).status, 401);
    assert.equal((await call('eli', 'PUT', `/api/v1/statuses/${post.id}`, { status: '   ' })).status, 422);
    assert.equal((await call('eli', 'PUT', `/api/v1/statuses/${post.id}`, { status: 'x'.repeat(501) })).status, 422);
    assert.equal((await call('eli', 'PUT', `/api/v1/statuses/${post.id}`, { status: 'ok', media_ids: ['1'] })).status, 422);
    assert.equal((await call('fay', 'GET', `/api/v1/statuses/${post.id}/source`)).status, 404);
    assert.equal((await call('eli', 'PUT', '/api/v1/statuses/999999', { status: 'nothing' })).status, 404);
    const now = (await call(undefined, 'GET', `/api/v1/statuses/${post.id}`)).body;
    assert.match(now.content, /mine/);
    assert.equal(now.edited_at, null);
  });
});
