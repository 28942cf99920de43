// The visibility matrix over real HTTP (cast and statuses in test/support/visibility-matrix.ts): every viewer reads
// amy's public, unlisted, private and direct statuses through the status, its context, amy's account timeline, home,
// public and the hashtag timeline. A follow ending takes private ones away. What else reads statuses (favourites,
// notifications, search, polls …) is in statuses-visibility-reads.test.ts; acting on them in
// statuses-visibility-actions.test.ts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KINDS, kindsIn, MAY_SEE, startMatrix, VIEWERS, type Json, type Kind, type Matrix, type Viewer } from '../support/visibility-matrix.js';

describe('statuses API: the visibility matrix', () => {
  let m: Matrix;
  before(async () => {
    m = await startMatrix();
  });
  after(() => m?.stop());

  it('answers GET /api/v1/statuses/:id with 200 only to those who may see it, 404 to the rest', async () => {
    for (const v of VIEWERS) {
      for (const k of KINDS) {
        const r = await m.call(v, 'GET', `/api/v1/statuses/${m.post[k]}`);
        const may = MAY_SEE[v].includes(k);
        assert.equal(r.status, may ? 200 : 404, `${v} reading ${k}`);
        if (may) assert.equal(r.body.visibility, k);
        else assert.deepEqual(r.body, { error: 'Record not found' });
      }
    }
  });

  it("shows each viewer exactly the statuses they may see on amy's account timeline", async () => {
    for (const v of VIEWERS) {
      const got = await m.list(v, `/api/v1/accounts/${m.id['amy']}/statuses?limit=40`);
      assert.deepEqual(kindsIn(got, m.post), MAY_SEE[v], v);
      assert.deepEqual(kindsIn(got, m.reply), MAY_SEE[v], `${v} replies`);
    }
  });

  it('shows only public statuses on the public timeline, never unlisted ones, and nothing of amy to fay', async () => {
    for (const v of VIEWERS) {
      const publicOnes = MAY_SEE[v].filter((k) => k === 'public');
      for (const q of ['', '?local=true']) {
        const got = await m.list(v, `/api/v1/timelines/public${q}`);
        assert.deepEqual(kindsIn(got, m.post), publicOnes, `${v} ${q}`);
        assert.deepEqual(kindsIn(got, m.reply), publicOnes, `${v} ${q} replies`);
        assert.ok(
          got.every((x: Json) => x.visibility === 'public'),
          v,
        );
      }
      assert.deepEqual(kindsIn(await m.list(v, '/api/v1/timelines/public?remote=true'), m.post), [], v);
    }
  });

  it('shows only public statuses on the hashtag timeline', async () => {
    for (const v of VIEWERS) {
      const publicOnes = MAY_SEE[v].filter((k) => k === 'public');
      assert.deepEqual(kindsIn(await m.list(v, '/api/v1/timelines/tag/matrix'), m.post), publicOnes, v);
      assert.deepEqual(kindsIn(await m.list(v, '/api/v1/timelines/tag/MATRIX?local=true'), m.post), publicOnes, v);
    }
  });

  it('puts on home what the viewer follows or is addressed: bob all but direct, cal the direct one, dee and fay nothing', async () => {
    const expected: Partial<Record<Viewer, readonly Kind[]>> = { amy: KINDS, bob: ['public', 'unlisted', 'private'], cal: ['direct'], dee: [], fay: [] };
    for (const [v, kinds] of Object.entries(expected) as [Viewer, readonly Kind[]][]) {
      const got = await m.list(v, '/api/v1/timelines/home?limit=40');
      assert.deepEqual(kindsIn(got, m.post), kinds, v);
      assert.deepEqual(kindsIn(got, m.reply), kinds, `${v} replies`);
    }
    assert.equal((await m.call('anonymous', 'GET', '/api/v1/timelines/home')).status, 401);
    assert.equal((await m.call('app', 'GET', '/api/v1/timelines/home')).status, 422, 'home needs a member');
  });

  it('shows in the context of a public parent only the replies the viewer may see', async () => {
    for (const v of VIEWERS) {
      const r = await m.call(v, 'GET', `/api/v1/statuses/${m.parent}/context`);
      if (!MAY_SEE[v].includes('public')) {
        assert.equal(r.status, 404, `${v}: the parent itself is hidden`);
        continue;
      }
      assert.equal(r.status, 200, v);
      assert.deepEqual(kindsIn(r.body.descendants, m.reply), MAY_SEE[v], v);
      assert.deepEqual(r.body.ancestors, []);
    }
  });

  it('shows a reply its parent as an ancestor only when the viewer may see the parent', async () => {
    // cal answers amy's direct status; bob answers her private one (both visible to cal / bob only among viewers).
    const calReply = (await m.postAs('cal', { status: 'publicly answering', visibility: 'public', in_reply_to_id: m.post.direct })).id;
    const bobReply = (await m.postAs('bob', { status: 'publicly answering', visibility: 'public', in_reply_to_id: m.post.private })).id;
    for (const v of VIEWERS) {
      const c = await m.call(v, 'GET', `/api/v1/statuses/${calReply}/context`);
      assert.equal(c.status, 200);
      assert.deepEqual(
        c.body.ancestors.map((x: Json) => x.id),
        MAY_SEE[v].includes('direct') ? [m.post.direct] : [],
        v,
      );
      const b = await m.call(v, 'GET', `/api/v1/statuses/${bobReply}/context`);
      assert.deepEqual(
        b.body.ancestors.map((x: Json) => x.id),
        MAY_SEE[v].includes('private') ? [m.post.private] : [],
        v,
      );
    }
  });

  it('counts in replies_count only the public and unlisted replies, as Mastodon does', async () => {
    // Counting private and direct replies tells everyone that a hidden conversation exists.
    for (const v of ['anonymous', 'dee'] as const) {
      const r = await m.call(v, 'GET', `/api/v1/statuses/${m.parent}`);
      assert.equal(r.body.replies_count, 2, v);
    }
  });

  it("lists a direct status's mentions only to those who may read it", async () => {
    const r = await m.call('cal', 'GET', `/api/v1/statuses/${m.post.direct}`);
    assert.deepEqual(r.body.mentions.map((x: Json) => x.acct).sort(), ['cal', 'fay']);
    assert.equal((await m.call('dee', 'GET', `/api/v1/statuses/${m.post.direct}/context`)).status, 404);
    assert.equal((await m.call('fay', 'GET', `/api/v1/statuses/${m.post.direct}/context`)).status, 404, 'mentioned, but blocked');
  });

  it('takes private statuses away from a follower who unfollows', async () => {
    assert.equal((await m.call('eve', 'POST', `/api/v1/accounts/${m.id['amy']}/follow`)).status, 200);
    assert.equal((await m.call('eve', 'GET', `/api/v1/statuses/${m.post.private}`)).status, 200);
    assert.deepEqual(kindsIn(await m.list('eve', '/api/v1/timelines/home?limit=40'), m.post), ['public', 'unlisted', 'private']);
    assert.equal((await m.call('eve', 'POST', `/api/v1/accounts/${m.id['amy']}/unfollow`)).status, 200);
    assert.equal((await m.call('eve', 'GET', `/api/v1/statuses/${m.post.private}`)).status, 404);
    assert.deepEqual(kindsIn(await m.list('eve', `/api/v1/accounts/${m.id['amy']}/statuses?limit=40`), m.post), ['public', 'unlisted']);
    assert.deepEqual(kindsIn(await m.list('eve', '/api/v1/timelines/home?limit=40'), m.post), []);
    assert.equal((await m.call('eve', 'POST', '/api/v1/statuses', { status: 'x', in_reply_to_id: m.post.private })).status, 404);
  });
});
