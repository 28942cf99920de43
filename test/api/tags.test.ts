// Hashtags as Mastodon 4.5 serves them: GET /api/v1/tags/:id (the Tag entity, with its last week and, for a member,
// following and featuring), following and unfollowing, the followed tags paged with Link headers, featuring by
// name (4.4); the errors; and the same through masto.js.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { createRestAPIClient } from 'masto';
import { extractHashtags, isHashtagName } from '../../src/text/status-text.js';
import { api, type Json } from '../support/api.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';

const SEED = Number(process.env['FC_SEED'] ?? 20261236);
const params = { seed: SEED, numRuns: 60, endOnFailure: true } as const;
/** Names a client might put in a tag's path or a featured tag's name: words, accents, digits, punctuation, '#'. */
const tagLike = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 8 }),
  fc.array(fc.constantFrom('a', 'É', 'ß', '猫', '_', '1', '-', '#', ' ', '.', '\u0301', '\u0000', '/', '%'), { maxLength: 14 }).map((cs) => cs.join('')),
);

describe('hashtags: the Tag entity and followed tags', () => {
  let s: TestServer;
  let m: LocalMembers;

  const call = (who: string | undefined, method: string, path: string, body?: unknown) => api(s.url, who && m.token[who], method, path, body);
  const ok = async (who: string | undefined, method: string, path: string, body?: unknown): Promise<Json> => {
    const r = await call(who, method, path, body);
    assert.equal(r.status, 200, `${method} ${path}: ${r.status} ${r.text}`);
    return r.body;
  };
  const post = (who: string, status: string, visibility = 'public') => ok(who, 'POST', '/api/v1/statuses', { status, visibility });
  const today = () => String(Math.floor(Date.now() / 86_400_000) * 86_400);

  before(async () => {
    s = await startTestServer();
    m = await createMembers(s, ['ann', 'bob', 'cat']);
    await post('bob', 'first #Weekly');
    await post('bob', 'again #weekly');
    await post('cat', 'me too #WEEKLY');
    await post('cat', 'quietly #weekly', 'unlisted');
  });
  after(() => s.stop());

  it("shows a tag with its week's uses and accounts, as strings, newest day first; following and featuring only for a member", async () => {
    const anon = await ok(undefined, 'GET', '/api/v1/tags/weekly');
    assert.deepEqual(Object.keys(anon).sort(), ['history', 'id', 'name', 'url']);
    assert.match(anon.id, /^\d+$/);
    assert.equal(anon.name, 'Weekly', 'the spelling first used');
    assert.equal(anon.url, `${s.url}/tags/Weekly`);
    assert.equal(anon.history.length, 7);
    assert.deepEqual(anon.history[0], { day: today(), uses: '3', accounts: '2' }, 'public posts only (the unlisted one is not counted)');
    for (let i = 1; i < 7; i++) {
      assert.equal(Number(anon.history[i].day), Number(today()) - i * 86_400);
      assert.deepEqual([anon.history[i].uses, anon.history[i].accounts], ['0', '0']);
    }
    const member = await ok('ann', 'GET', '/api/v1/tags/WEEKLY');
    assert.equal(member.id, anon.id, 'names are matched case-insensitively');
    assert.equal(member.following, false);
    assert.equal(member.featuring, false);
  });

  it('answers an unused tag as Mastodon renders an unsaved one, and 404 for a name that is no hashtag', async () => {
    const unused = await ok('ann', 'GET', '/api/v1/tags/NeverUsed');
    assert.deepEqual(
      { ...unused, history: undefined },
      { id: '', name: 'NeverUsed', url: `${s.url}/tags/NeverUsed`, history: undefined, following: false, featuring: false },
    );
    assert.ok(unused.history.every((d: Json) => d.uses === '0' && d.accounts === '0'));
    for (const bad of ['123', 'with-dash', encodeURIComponent('sp ace'), 'x'.repeat(101)]) {
      const r = await call('ann', 'GET', `/api/v1/tags/${bad}`);
      assert.equal(r.status, 404, bad);
      assert.deepEqual(r.body, { error: 'Record not found' });
      assert.equal((await call('ann', 'POST', `/api/v1/tags/${bad}/follow`)).status, 404, bad);
    }
  });

  it('follows and unfollows a tag, making an unused one; the followed tags list it', async () => {
    const followed = await ok('ann', 'POST', '/api/v1/tags/Fresh/follow');
    assert.match(followed.id, /^\d+$/, 'following an unused tag saves it');
    assert.equal(followed.name, 'Fresh');
    assert.equal(followed.following, true);
    assert.equal((await ok('ann', 'POST', '/api/v1/tags/fresh/follow')).following, true, 'following twice is no error');
    assert.equal((await ok('ann', 'GET', '/api/v1/tags/fresh')).following, true);
    assert.equal((await ok('bob', 'GET', '/api/v1/tags/fresh')).following, false, "another member's view");
    const list = await ok('ann', 'GET', '/api/v1/followed_tags');
    assert.deepEqual(
      list.map((t: Json) => [t.name, t.following]),
      [['Fresh', true]],
    );
    const unfollowed = await ok('ann', 'POST', '/api/v1/tags/fresh/unfollow');
    assert.equal(unfollowed.following, false);
    assert.deepEqual(await ok('ann', 'GET', '/api/v1/followed_tags'), []);
    assert.equal((await ok('ann', 'POST', '/api/v1/tags/NotFollowed/unfollow')).following, false, 'unfollowing an unfollowed tag is no error');
  });

  it('pages the followed tags newest follow first, with Link headers; limit 100 by default, at most 200', async () => {
    const names = ['p1', 'p2', 'p3', 'p4', 'p5'];
    for (const n of names) await ok('cat', 'POST', `/api/v1/tags/${n}/follow`);
    const seen: string[] = [];
    let next: string | null = '/api/v1/followed_tags?limit=2';
    while (next) {
      const r = await call('cat', 'GET', next);
      assert.equal(r.status, 200, r.text);
      if (r.body.length === 0) {
        assert.equal(r.link, null, 'no Link header on an empty page');
        break;
      }
      assert.ok(r.body.length <= 2);
      seen.push(...r.body.map((t: Json) => t.name));
      assert.match(r.link ?? '', /rel="prev"/);
      const link = /<([^>]+)>;\s*rel="next"/.exec(r.link ?? '');
      next = link ? new URL(link[1]!).pathname + new URL(link[1]!).search : null;
    }
    assert.deepEqual(seen, [...names].reverse());
    assert.match((await call('cat', 'GET', '/api/v1/followed_tags')).link ?? '', /limit=100&/);
    assert.match((await call('cat', 'GET', '/api/v1/followed_tags?limit=1000')).link ?? '', /limit=200&/);
    const bad = await call('cat', 'GET', '/api/v1/followed_tags?limit=abc');
    assert.equal(bad.status, 400);
  });

  it('features and unfeatures a tag by name (4.4), shown as featuring', async () => {
    const featured = await ok('bob', 'POST', '/api/v1/tags/weekly/feature');
    assert.equal(featured.featuring, true);
    assert.equal(featured.name, 'Weekly');
    assert.deepEqual(
      (await ok('bob', 'GET', '/api/v1/featured_tags')).map((f: Json) => f.name),
      ['Weekly'],
      "the tag's own spelling, as Mastodon's FeaturedTag#display_name falls back to it",
    );
    assert.equal((await ok('bob', 'POST', '/api/v1/tags/weekly/feature')).featuring, true, 'featuring twice is no error');
    assert.equal((await ok('bob', 'POST', '/api/v1/tags/weekly/unfeature')).featuring, false);
    assert.deepEqual(await ok('bob', 'GET', '/api/v1/featured_tags'), []);
  });

  it('asks for the scopes Mastodon documents, and a member', async () => {
    const read = await m.tokenFor('ann', ['read']);
    const r = await api(s.url, read, 'POST', '/api/v1/tags/weekly/follow');
    assert.equal(r.status, 403);
    assert.deepEqual(r.body, { error: 'This action is outside the authorized scopes' });
    assert.equal((await api(s.url, await m.tokenFor('ann', ['write:follows']), 'POST', '/api/v1/tags/weekly/follow')).status, 200);
    assert.equal((await api(s.url, await m.tokenFor('ann', ['follow']), 'POST', '/api/v1/tags/weekly/unfollow')).status, 200);
    assert.equal((await api(s.url, await m.tokenFor('ann', ['write:follows']), 'POST', '/api/v1/tags/weekly/feature')).status, 403);
    assert.equal((await call(undefined, 'GET', '/api/v1/followed_tags')).status, 401);
    assert.equal((await api(s.url, await m.tokenFor('ann', ['read:accounts']), 'GET', '/api/v1/tags/weekly')).status, 200, 'any token reads a tag');
  });

  it('takes as a tag name exactly what a status would link as one', () => {
    fc.assert(
      fc.property(tagLike, (name) => {
        const linked = extractHashtags(`#${name}`);
        assert.equal(isHashtagName(name), linked.length === 1 && linked[0] === name && name.length <= 100, JSON.stringify(name));
      }),
      params,
    );
  });

  it('answers any name with a tag, a 404 or a 422, never a server error (fast-check)', async () => {
    await fc.assert(
      fc.asyncProperty(tagLike, async (name) => {
        const shown = await call('cat', 'GET', `/api/v1/tags/${encodeURIComponent(name)}`);
        assert.ok(shown.status === 200 || shown.status === 404, `GET ${JSON.stringify(name)}: ${shown.status} ${shown.text}`);
        const folded = (x: string) => x.normalize('NFC').toLowerCase();
        // The spelling first used is kept: the same tag, whatever the case.
        if (shown.status === 200) assert.equal(folded(shown.body.name), folded(name));
        // No name at all is no route (/api/v1/tags/ is /api/v1/tags, as Rails takes it).
        else assert.deepEqual(shown.body, { error: name === '' ? 'Not found' : 'Record not found' });
        const featured = await call('cat', 'POST', '/api/v1/featured_tags', { name });
        assert.ok(featured.status === 200 || featured.status === 422, `feature ${JSON.stringify(name)}: ${featured.status} ${featured.text}`);
        if (featured.status === 200) await ok('cat', 'DELETE', `/api/v1/featured_tags/${featured.body.id}`);
        else assert.match(featured.body.error, /^Validation failed: /);
      }),
      { ...params, numRuns: 40 },
    );
  });

  it('serves masto.js: tags.$select(name).fetch, follow, unfollow, feature, unfeature; followedTags.list', async () => {
    const client = createRestAPIClient({ url: s.url, accessToken: m.token['ann']! });
    const tag = await client.v1.tags.$select('weekly').fetch();
    assert.equal(tag.name, 'Weekly');
    assert.equal(tag.history?.[0]?.uses, '3');
    assert.equal((await client.v1.tags.$select('masto').follow()).following, true);
    const listed = await client.v1.followedTags.list({ limit: 10 });
    assert.ok(listed.some((t) => t.name === 'masto'));
    assert.equal((await client.v1.tags.$select('masto').unfollow()).following, false);
    assert.ok(!(await client.v1.followedTags.list()).some((t) => t.name === 'masto'));
    assert.equal((await client.v1.tags.$select('masto').feature()).featuring, true);
    assert.equal((await client.v1.tags.$select('masto').unfeature()).featuring, false);
  });
});
