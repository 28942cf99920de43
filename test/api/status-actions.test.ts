// Undoing actions and pins over real HTTP: unfavourite and unbookmark take the status out of the member's lists and
// counts (and the author's notification goes); pins follow Mastodon's StatusPinValidator (one's own posts, private
// ones too, not direct posts nor boosts, at most five), and unpinning answers the status whether or not it was pinned.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, type Json } from '../support/api.js';
import { createMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';

describe('status actions and their undoing', () => {
  let s: TestServer;
  let token: Record<string, string>;

  const call = (who: string | undefined, method: string, path: string, body?: unknown) => api(s.url, who ? token[who] : undefined, method, path, body);
  const post = async (who: string, fields: Record<string, unknown>): Promise<string> => (await call(who, 'POST', '/api/v1/statuses', fields)).body.id;
  const ids = async (who: string | undefined, path: string): Promise<string[]> => (await call(who, 'GET', path)).body.map((x: Json) => x.id);

  before(async () => {
    s = await startTestServer();
    const members = await createMembers(s, ['kim', 'lou']);
    token = members.token;
    token['kim-accounts'] = await members.tokenFor('kim', ['read:accounts']);
    token['kim-statuses'] = await members.tokenFor('kim', ['read:statuses']);
  });
  after(() => s?.stop());

  it('lists who favourited and boosted a post to a token with read:accounts, as Mastodon asks', async () => {
    const id = await post('lou', { status: 'liked and boosted' });
    assert.equal((await call('kim', 'POST', `/api/v1/statuses/${id}/favourite`)).status, 200);
    assert.equal((await call('kim', 'POST', `/api/v1/statuses/${id}/reblog`)).status, 200);
    for (const list of ['favourited_by', 'reblogged_by']) {
      const r = await call('kim-accounts', 'GET', `/api/v1/statuses/${id}/${list}`);
      assert.equal(r.status, 200, list);
      assert.deepEqual(
        r.body.map((a: Json) => a.username),
        ['kim'],
        list,
      );
      assert.equal((await call('kim-statuses', 'GET', `/api/v1/statuses/${id}/${list}`)).status, 403, `${list} with read:statuses only`);
      assert.deepEqual(
        (await call(undefined, 'GET', `/api/v1/statuses/${id}/${list}`)).body.map((a: Json) => a.username),
        ['kim'],
        `${list}, anonymous`,
      );
    }
  });

  it('unfavourites: the flag, the count, the favourites list and the author’s notification all go', async () => {
    const id = await post('kim', { status: 'like me' });
    const fav = await call('lou', 'POST', `/api/v1/statuses/${id}/favourite`);
    assert.deepEqual([fav.status, fav.body.favourited, fav.body.favourites_count], [200, true, 1]);
    assert.deepEqual(await ids('lou', '/api/v1/favourites'), [id]);
    assert.deepEqual(
      (await call('kim', 'GET', '/api/v1/notifications?types[]=favourite')).body.map((n: Json) => n.status.id),
      [id],
    );
    for (let i = 0; i < 2; i++) {
      // Twice: undoing what is not there changes nothing and still answers the status.
      const un = await call('lou', 'POST', `/api/v1/statuses/${id}/unfavourite`);
      assert.deepEqual([un.status, un.body.id, un.body.favourited, un.body.favourites_count], [200, id, false, 0]);
    }
    assert.deepEqual(await ids('lou', '/api/v1/favourites'), []);
    assert.deepEqual((await call('kim', 'GET', '/api/v1/notifications?types[]=favourite')).body, []);
    assert.equal((await call(undefined, 'GET', `/api/v1/statuses/${id}`)).body.favourites_count, 0);
  });

  it('unbookmarks: the flag and the bookmarks list', async () => {
    const id = await post('kim', { status: 'keep me' });
    const mark = await call('lou', 'POST', `/api/v1/statuses/${id}/bookmark`);
    assert.deepEqual([mark.status, mark.body.bookmarked], [200, true]);
    assert.deepEqual(await ids('lou', '/api/v1/bookmarks'), [id]);
    for (let i = 0; i < 2; i++) {
      const un = await call('lou', 'POST', `/api/v1/statuses/${id}/unbookmark`);
      assert.deepEqual([un.status, un.body.id, un.body.bookmarked], [200, id, false]);
    }
    assert.deepEqual(await ids('lou', '/api/v1/bookmarks'), []);
  });

  it('pins own public, unlisted and private posts; refuses direct posts, boosts and others’ posts with 422', async () => {
    const pinned = `/api/v1/accounts/${(await call('kim', 'GET', '/api/v1/accounts/verify_credentials')).body.id}/statuses?pinned=true`;
    const mine: string[] = [];
    for (const visibility of ['public', 'unlisted', 'private']) {
      const id = await post('kim', { status: `pin ${visibility}`, visibility });
      const r = await call('kim', 'POST', `/api/v1/statuses/${id}/pin`);
      assert.deepEqual([r.status, r.body.pinned], [200, true], visibility);
      mine.unshift(id);
    }
    assert.deepEqual(await ids('kim', pinned), mine, 'newest pin first');
    const refusals: [string, string, string][] = [
      ['kim', await post('kim', { status: '@lou direct', visibility: 'direct' }), 'Posts that are only visible to mentioned users cannot be pinned'],
      ['kim', (await call('kim', 'POST', `/api/v1/statuses/${await post('lou', { status: 'boost me' })}/reblog`)).body.id, 'A boost cannot be pinned'],
      ['lou', mine[2]!, "Someone else's post cannot be pinned"], // the public one, which lou may see
    ];
    for (const [who, id, message] of refusals) {
      const r = await call(who, 'POST', `/api/v1/statuses/${id}/pin`);
      assert.deepEqual([r.status, r.body], [422, { error: `Validation failed: ${message}` }], message);
    }
    assert.deepEqual(await ids('kim', pinned), mine, 'nothing more pinned');
  });

  it('allows five pins; a sixth is refused until one is unpinned or deleted; pinning again is no change', async () => {
    const kim = (await call('kim', 'GET', '/api/v1/accounts/verify_credentials')).body.id;
    const pinned = `/api/v1/accounts/${kim}/statuses?pinned=true`;
    for (const id of await ids('kim', pinned)) await call('kim', 'POST', `/api/v1/statuses/${id}/unpin`);
    const five: string[] = [];
    for (let i = 0; i < 5; i++) {
      five.push(await post('kim', { status: `pin ${i}` }));
      assert.equal((await call('kim', 'POST', `/api/v1/statuses/${five[i]}/pin`)).status, 200);
    }
    const sixth = await post('kim', { status: 'one too many' });
    const refused = await call('kim', 'POST', `/api/v1/statuses/${sixth}/pin`);
    assert.deepEqual([refused.status, refused.body], [422, { error: 'Validation failed: You have already pinned the maximum number of posts' }]);
    assert.equal((await call('kim', 'POST', `/api/v1/statuses/${five[2]}/pin`)).status, 200, 'pinning a pinned post again');

    const unpinned = await call('kim', 'POST', `/api/v1/statuses/${five[0]}/unpin`);
    assert.deepEqual([unpinned.status, unpinned.body.id, unpinned.body.pinned], [200, five[0], false]);
    assert.ok(!(await ids(undefined, pinned)).includes(five[0]!));
    assert.equal((await call('kim', 'POST', `/api/v1/statuses/${sixth}/pin`)).status, 200, 'a slot was freed');

    assert.equal((await call('kim', 'DELETE', `/api/v1/statuses/${five[1]}`)).status, 200);
    const seventh = await post('kim', { status: 'after a deletion' });
    assert.equal((await call('kim', 'POST', `/api/v1/statuses/${seventh}/pin`)).status, 200, "a deleted post's pin does not count");
    assert.deepEqual(await ids(undefined, pinned), [seventh, sixth, five[4], five[3], five[2]]);
  });

  it('unpins: answers the status whether or not it was pinned, someone else’s included, and changes nothing else', async () => {
    const kim = (await call('kim', 'GET', '/api/v1/accounts/verify_credentials')).body.id;
    const before = await ids(undefined, `/api/v1/accounts/${kim}/statuses?pinned=true`);
    const notPinned = await post('kim', { status: 'never pinned' });
    for (const [who, id] of [
      ['kim', notPinned],
      ['lou', before[0]!],
    ] as const) {
      const r = await call(who, 'POST', `/api/v1/statuses/${id}/unpin`);
      assert.deepEqual([r.status, r.body.id], [200, id], who);
    }
    assert.deepEqual(await ids(undefined, `/api/v1/accounts/${kim}/statuses?pinned=true`), before);
  });
});
