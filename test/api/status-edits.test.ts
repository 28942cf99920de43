// Editing statuses over real HTTP, as Mastodon's clients do it: the request is the whole post (text, content warning,
// sensitivity, language, the ordered media_ids with media_attributes, the poll); the status keeps its id, visibility
// and thread; history lists every version with the attachments and poll it had; source gives the text back; new
// mentions are notified; nobody else can edit, nobody can attach another's media; validation is that of posting.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, type Json } from '../support/api.js';
import { png, upload } from '../support/media.js';
import { createMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';

describe('editing statuses', () => {
  let s: TestServer;
  const id: Record<string, string> = {};
  const token: Record<string, string> = {};

  const call = (who: string | undefined, method: string, path: string, body?: unknown) => api(s.url, who ? token[who] : undefined, method, path, body);

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
    assert.deepEqual(
      edited.body.tags.map((t: Json) => t.name),
      ['new'],
    );
    assert.ok(Date.parse(edited.body.edited_at) >= Date.parse(post.created_at));
    // An edit is the whole post: a content warning it leaves out is gone, as on Mastodon.
    await call('eli', 'PUT', `/api/v1/statuses/${post.id}`, { status: 'v3' });
    const history = (await call(undefined, 'GET', `/api/v1/statuses/${post.id}/history`)).body;
    assert.deepEqual(
      history.map((v: Json) => v.content.match(/v\d/)![0]),
      ['v1', 'v2', 'v3'],
    );
    assert.deepEqual(
      history.map((v: Json) => v.spoiler_text),
      ['', 'careful', ''],
    );
    assert.equal(history[0].account.id, id['eli']);
    assert.deepEqual(history[0].media_attachments, []);
    assert.ok(!('poll' in history[0]), 'no poll key for a version without a poll, as Mastodon');
    assert.deepEqual((await call('eli', 'GET', `/api/v1/statuses/${post.id}/source`)).body, { id: post.id, text: 'v3', spoiler_text: '' });
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

  it('refuses edits by anyone but the author, and invalid edits, changing nothing', async () => {
    const post = (await call('eli', 'POST', '/api/v1/statuses', { status: 'mine' })).body;
    assert.equal((await call('fay', 'PUT', `/api/v1/statuses/${post.id}`, { status: 'hijack' })).status, 404);
    assert.equal((await call(undefined, 'PUT', `/api/v1/statuses/${post.id}`, { status: 'anon' })).status, 401);
    assert.equal((await call('eli', 'PUT', `/api/v1/statuses/${post.id}`, { status: '   ' })).status, 422);
    assert.equal((await call('eli', 'PUT', `/api/v1/statuses/${post.id}`, { status: 'x'.repeat(501) })).status, 422);
    assert.equal((await call('eli', 'PUT', `/api/v1/statuses/${post.id}`, { status: 'ok', media_ids: ['1'] })).status, 422, 'media that is not hers');
    assert.equal((await call('fay', 'GET', `/api/v1/statuses/${post.id}/source`)).status, 404);
    assert.equal((await call('eli', 'PUT', '/api/v1/statuses/999999', { status: 'nothing' })).status, 404);
    const now = (await call(undefined, 'GET', `/api/v1/statuses/${post.id}`)).body;
    assert.match(now.content, /mine/);
    assert.equal(now.edited_at, null);
  });

  const picture = async (who: string, description?: string): Promise<string> => {
    const r = await upload(s.url, token[who], png(40, 30), description === undefined ? {} : { description });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.id;
  };
  const shown = async (statusId: string): Promise<Json> => (await call('eli', 'GET', `/api/v1/statuses/${statusId}`)).body;
  const ids = (status: Json): string[] => status.media_attachments.map((m: Json) => m.id);

  it('keeps the attachments when an edit sends the same media_ids, as Mastodon clients do on every edit', async () => {
    const [a, b] = [await picture('eli', 'first'), await picture('eli', 'second')];
    const post = (await call('eli', 'POST', '/api/v1/statuses', { status: 'two pictures', media_ids: [a, b] })).body;
    const edited = await call('eli', 'PUT', `/api/v1/statuses/${post.id}`, { status: 'two pictures, captioned', media_ids: [a, b] });
    assert.equal(edited.status, 200, JSON.stringify(edited.body));
    assert.deepEqual(ids(edited.body), [a, b]);
    assert.deepEqual(
      edited.body.media_attachments.map((m: Json) => m.description),
      ['first', 'second'],
    );
    assert.match(edited.body.content, /captioned/);
    assert.deepEqual(ids(await shown(post.id)), [a, b]);
  });

  it('edits a media-only post: text may stay empty or be added while the media stay', async () => {
    const a = await picture('eli');
    const post = (await call('eli', 'POST', '/api/v1/statuses', { media_ids: [a] })).body;
    assert.equal(post.content, '');
    const cw = await call('eli', 'PUT', `/api/v1/statuses/${post.id}`, { status: '', spoiler_text: 'eye strain', media_ids: [a] });
    assert.equal(cw.status, 200, JSON.stringify(cw.body));
    assert.equal(cw.body.spoiler_text, 'eye strain');
    assert.equal(cw.body.sensitive, true);
    const captioned = await call('eli', 'PUT', `/api/v1/statuses/${post.id}`, { status: 'now with words', media_ids: [a] });
    assert.equal(captioned.status, 200, JSON.stringify(captioned.body));
    assert.match(captioned.body.content, /now with words/);
    assert.deepEqual(ids(captioned.body), [a]);
    // Without its media the post needs text: refused, and nothing changes.
    const blank = await call('eli', 'PUT', `/api/v1/statuses/${post.id}`, { status: ' ' });
    assert.equal(blank.status, 422);
    assert.equal(blank.body.error, "Validation failed: Text can't be blank");
    assert.deepEqual(ids(await shown(post.id)), [a]);
  });

  it('reorders, removes, restores and adds attachments; a removed one can go on no other post', async () => {
    const [a, b, c] = [await picture('eli'), await picture('eli'), await picture('eli')];
    const post = (await call('eli', 'POST', '/api/v1/statuses', { status: 'album', media_ids: [a, b] })).body;
    const reordered = await call('eli', 'PUT', `/api/v1/statuses/${post.id}`, { status: 'album', media_ids: [b, a] });
    assert.deepEqual(ids(reordered.body), [b, a]);
    const swapped = await call('eli', 'PUT', `/api/v1/statuses/${post.id}`, { status: 'album', media_ids: [c, b] });
    assert.equal(swapped.status, 200, JSON.stringify(swapped.body));
    assert.deepEqual(ids(swapped.body), [c, b]);
    assert.deepEqual(ids(await shown(post.id)), [c, b]);
    const elsewhere = await call('eli', 'POST', '/api/v1/statuses', { status: 'reuse', media_ids: [a] });
    assert.equal(elsewhere.status, 422, 'an attachment taken out of a post still belongs to it');
    const restored = await call('eli', 'PUT', `/api/v1/statuses/${post.id}`, { status: 'album', media_ids: [a, b, c] });
    assert.deepEqual(ids(restored.body), [a, b, c]);
    const none = await call('eli', 'PUT', `/api/v1/statuses/${post.id}`, { status: 'no pictures now' });
    assert.deepEqual(ids(none.body), []);
    const onlyMedia = (await call('eli', 'GET', `/api/v1/accounts/${id['eli']}/statuses?only_media=true`)).body;
    assert.ok(!onlyMedia.some((x: Json) => x.id === post.id), 'a post whose attachments were all removed has no media');
  });

  it('sets descriptions and focus with media_attributes in the same request, JSON or form-encoded', async () => {
    const [a, b] = [await picture('eli', 'old'), await picture('eli', 'kept')];
    const post = (await call('eli', 'POST', '/api/v1/statuses', { status: 'describe me', media_ids: [a, b] })).body;
    const edited = await call('eli', 'PUT', `/api/v1/statuses/${post.id}`, {
      status: 'describe me',
      media_ids: [a, b],
      media_attributes: [{ id: a, description: 'a red door', focus: '0.5,-0.25' }],
    });
    assert.equal(edited.status, 200, JSON.stringify(edited.body));
    assert.deepEqual(
      edited.body.media_attachments.map((m: Json) => m.description),
      ['a red door', 'kept'],
    );
    assert.deepEqual(edited.body.media_attachments[0].meta.focus, { x: 0.5, y: -0.25 });
    assert.ok(edited.body.edited_at, 'a new description alone is an edit');
    const form = new URLSearchParams();
    form.append('status', 'describe me');
    for (const m of [a, b]) form.append('media_ids[]', m);
    form.append('media_attributes[][id]', a);
    form.append('media_attributes[][description]', 'a blue door');
    form.append('media_attributes[][id]', b);
    form.append('media_attributes[][description]', 'a window');
    const res = await fetch(`${s.url}/api/v1/statuses/${post.id}`, {
      method: 'PUT',
      headers: { Authorization: `Bearer ${token['eli']}`, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: form,
    });
    const body = (await res.json()) as Json;
    assert.equal(res.status, 200, JSON.stringify(body));
    assert.deepEqual(
      body.media_attachments.map((m: Json) => m.description),
      ['a blue door', 'a window'],
    );
  });

  it("refuses another member's media, media of another post, too many files, and media with a poll, changing nothing", async () => {
    const mine = await picture('eli', 'mine');
    const post = (await call('eli', 'POST', '/api/v1/statuses', { status: 'untouched', media_ids: [mine] })).body;
    const other = (await call('eli', 'POST', '/api/v1/statuses', { status: 'other post', media_ids: [await picture('eli')] })).body;
    const theirs = await picture('fay');
    for (const [body, why] of [
      [{ status: 'hijack', media_ids: [mine, theirs] }, "fay's upload"],
      [{ status: 'steal', media_ids: [other.media_attachments[0].id] }, "another post's attachment"],
      [{ status: 'many', media_ids: [mine, await picture('eli'), await picture('eli'), await picture('eli'), await picture('eli')] }, 'five files'],
      [{ status: 'both', media_ids: [mine], poll: { options: ['x', 'y'], expires_in: 3600 } }, 'media and a poll'],
      [{ status: 'retitled', media_ids: [mine], media_attributes: [{ id: mine, description: 'x'.repeat(1501) }] }, 'a description too long'],
    ] as const) {
      const r = await call('eli', 'PUT', `/api/v1/statuses/${post.id}`, body);
      assert.equal(r.status, 422, why);
      assert.match(r.body.error, /^Validation failed: /, why);
    }
    const now = await shown(post.id);
    assert.match(now.content, /untouched/);
    assert.equal(now.edited_at, null);
    assert.deepEqual(ids(now), [mine]);
    assert.equal(now.media_attachments[0].description, 'mine');
    assert.deepEqual(ids(await shown(other.id)), [other.media_attachments[0].id]);
    const fays = await call('fay', 'POST', '/api/v1/statuses', { status: 'still free', media_ids: [theirs] });
    assert.equal(fays.status, 200, "fay's upload was not taken");
  });

  it('keeps the votes of a poll edited without new options, and voids them when the options or the kind change', async () => {
    const poll = { options: ['tea', 'coffee'], expires_in: 3600 };
    const post = (await call('eli', 'POST', '/api/v1/statuses', { status: 'which?', poll })).body;
    assert.equal((await call('fay', 'POST', `/api/v1/polls/${post.poll.id}/votes`, { choices: [1] })).status, 200);
    const kept = await call('eli', 'PUT', `/api/v1/statuses/${post.id}`, { status: 'which one?', poll: { ...poll, expires_in: 7200 } });
    assert.equal(kept.status, 200, JSON.stringify(kept.body));
    assert.deepEqual(kept.body.poll.options, [
      { title: 'tea', votes_count: 0 },
      { title: 'coffee', votes_count: 1 },
    ]);
    assert.ok(Date.parse(kept.body.poll.expires_at) > Date.parse(post.poll.expires_at));
    const fayView = (await call('fay', 'GET', `/api/v1/statuses/${post.id}`)).body.poll;
    assert.equal(fayView.voted, true);
    assert.deepEqual(fayView.own_votes, [1]);
    const changed = await call('eli', 'PUT', `/api/v1/statuses/${post.id}`, {
      status: 'which one?',
      poll: { options: ['tea', 'coffee', 'water'], expires_in: 7200 },
    });
    assert.deepEqual(changed.body.poll.options, [
      { title: 'tea', votes_count: 0 },
      { title: 'coffee', votes_count: 0 },
      { title: 'water', votes_count: 0 },
    ]);
    assert.equal(changed.body.poll.votes_count, 0);
    assert.equal(changed.body.poll.id, post.poll.id);
    const again = (await call('fay', 'GET', `/api/v1/statuses/${post.id}`)).body.poll;
    assert.equal(again.voted, false);
    assert.deepEqual(again.own_votes, []);
    assert.equal((await call('fay', 'POST', `/api/v1/polls/${post.poll.id}/votes`, { choices: [2] })).status, 200);
    const multiple = await call('eli', 'PUT', `/api/v1/statuses/${post.id}`, {
      status: 'which ones?',
      poll: { options: ['tea', 'coffee', 'water'], expires_in: 7200, multiple: true },
    });
    assert.equal(multiple.body.poll.multiple, true);
    assert.equal(multiple.body.poll.votes_count, 0, 'several choices instead of one: the votes go');
    const dropped = await call('eli', 'PUT', `/api/v1/statuses/${post.id}`, { status: 'never mind' });
    assert.equal(dropped.status, 200, JSON.stringify(dropped.body));
    assert.equal(dropped.body.poll, null);
    const text = await call('eli', 'PUT', `/api/v1/statuses/${post.id}`, { status: '', poll });
    assert.equal(text.status, 422, 'a poll does not stand in for text, as on Mastodon');
  });

  it('lists each version with the attachments, descriptions and poll options it had', async () => {
    const [a, b] = [await picture('eli', 'a, first'), await picture('eli', 'b')];
    const post = (await call('eli', 'POST', '/api/v1/statuses', { status: 'v1', media_ids: [a] })).body;
    await call('eli', 'PUT', `/api/v1/statuses/${post.id}`, { status: 'v2', media_ids: [a, b], media_attributes: [{ id: a, description: 'a, second' }] });
    await call('eli', 'PUT', `/api/v1/statuses/${post.id}`, { status: 'v3', poll: { options: ['yes', 'no'], expires_in: 3600 } });
    await call('eli', 'PUT', `/api/v1/statuses/${post.id}`, { status: 'v4', poll: { options: ['yes', 'no', 'maybe'], expires_in: 3600 } });
    const history = (await call(undefined, 'GET', `/api/v1/statuses/${post.id}/history`)).body;
    assert.deepEqual(
      history.map((v: Json) => v.content.match(/v\d/)![0]),
      ['v1', 'v2', 'v3', 'v4'],
    );
    assert.deepEqual(
      history.map((v: Json) => v.media_attachments.map((m: Json) => [m.id, m.description])),
      [
        [[a, 'a, first']],
        [
          [a, 'a, second'],
          [b, 'b'],
        ],
        [],
        [],
      ],
    );
    assert.match(history[0].media_attachments[0].url, /\/system\/media\//);
    assert.deepEqual(
      history.map((v: Json) => v.poll ?? null),
      [null, null, { options: [{ title: 'yes' }, { title: 'no' }] }, { options: [{ title: 'yes' }, { title: 'no' }, { title: 'maybe' }] }],
    );
    assert.ok(history.every((v: Json) => v.account.id === id['eli'] && Array.isArray(v.emojis) && typeof v.sensitive === 'boolean' && v.created_at));
    const never = (await call('eli', 'POST', '/api/v1/statuses', { status: 'as posted', media_ids: [await picture('eli', 'only')] })).body;
    const one = (await call(undefined, 'GET', `/api/v1/statuses/${never.id}/history`)).body;
    assert.deepEqual(
      one.map((v: Json) => v.media_attachments.map((m: Json) => m.description)),
      [['only']],
    );
  });

  it('takes an edit that changes nothing as no edit', async () => {
    const post = (await call('eli', 'POST', '/api/v1/statuses', { status: 'as it was', spoiler_text: 'cw', language: 'en' })).body;
    // Visibility cannot change by an edit: Mastodon ignores it, so it changes nothing here either.
    const same = await call('eli', 'PUT', `/api/v1/statuses/${post.id}`, { status: 'as it was', spoiler_text: 'cw', sensitive: true, visibility: 'direct' });
    assert.equal(same.status, 200, JSON.stringify(same.body));
    assert.equal(same.body.edited_at, null);
    assert.equal(same.body.visibility, 'public');
    assert.equal(same.body.language, 'en');
    assert.equal((await call(undefined, 'GET', `/api/v1/statuses/${post.id}/history`)).body.length, 1);
  });
});
