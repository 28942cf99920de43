// The visibility matrix over real HTTP: amy posts public, unlisted, private and direct (mentioning cal) statuses, each
// tagged #matrix, and the same four kinds of reply under a public parent. Five viewers — anonymous, amy, bob (her
// follower), cal (mentioned, not a follower), dee (a stranger) — read them through every endpoint: the status, its
// context, amy's account timeline, home, public and the hashtag timeline. A follow ending takes private ones away.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hashPassword } from '../../src/auth/password.js';
import { TokenStore } from '../../src/store/oauth-tokens.js';
import { UserStore } from '../../src/store/users.js';
import { appToken, registerApp, type RegisteredApp } from '../support/oauth.js';
import { startTestServer, type TestServer } from '../support/server.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- API JSON, asserted field by field
type Json = any;

type Kind = 'public' | 'unlisted' | 'private' | 'direct';
type Viewer = 'anonymous' | 'app' | 'amy' | 'bob' | 'cal' | 'dee';
const KINDS: readonly Kind[] = ['public', 'unlisted', 'private', 'direct'];
const VIEWERS: readonly Viewer[] = ['anonymous', 'app', 'amy', 'bob', 'cal', 'dee'];

/** Which of amy's statuses each viewer may read (Mastodon's rules). */
const MAY_SEE: Record<Viewer, readonly Kind[]> = {
  anonymous: ['public', 'unlisted'],
  app: ['public', 'unlisted'],
  amy: KINDS,
  bob: ['public', 'unlisted', 'private'],
  cal: ['public', 'unlisted', 'direct'],
  dee: ['public', 'unlisted'],
};

describe('statuses API: the visibility matrix', () => {
  let s: TestServer;
  let app: RegisteredApp;
  let users: UserStore;
  let tokens: TokenStore;
  let memberHash: Promise<string>;
  const ids: Record<string, string> = {};
  /** Viewers' tokens, and eve's: a member who follows amy only in the last test. */
  const token: Partial<Record<Viewer | 'eve', string>> = {};
  /** amy's four statuses by kind, and the four replies under `parent`. */
  const post: Partial<Record<Kind, string>> = {};
  const reply: Partial<Record<Kind, string>> = {};
  let parent: string;

  async function call(viewer: Viewer | 'eve' | undefined, method: string, path: string, body?: unknown): Promise<{ status: number; body: Json; type: string | null }> {
    const t = viewer === undefined ? undefined : token[viewer];
    const headers: Record<string, string> = t === undefined ? {} : { Authorization: `Bearer ${t}` };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const res = await fetch(s.url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null, type: res.headers.get('content-type') };
  }
  const postAs = async (v: Viewer, fields: Record<string, unknown>): Promise<string> => {
    const r = await call(v, 'POST', '/api/v1/statuses', fields);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.id;
  };
  /** The kinds, among `of`, whose ids appear in a list of statuses. */
  const kindsIn = (list: Json[], of: Partial<Record<Kind, string>>): Kind[] =>
    KINDS.filter((k) => list.some((x: Json) => x.id === of[k]));
  const list = async (v: Viewer | 'eve', path: string): Promise<Json[]> => {
    const r = await call(v, 'GET', path);
    assert.equal(r.status, 200, `${v} ${path}: ${JSON.stringify(r.body)}`);
    assert.ok(Array.isArray(r.body));
    return r.body;
  };

  before(async () => {
    s = await startTestServer();
    users = new UserStore(s.app.db);
    tokens = new TokenStore(s.app.db);
    memberHash = hashPassword('member-password-1');
    app = await registerApp(s.url, { scopes: 'read write follow' });
    for (const name of ['amy', 'bob', 'cal', 'dee', 'eve'] as const) {
      const user = await users.create({ username: name, email: `${name}@example.test`, passwordHash: await memberHash, roleId: 0, approved: true });
      ids[name] = user.accountId;
      token[name] = (await tokens.issue(app.id, user.userId, ['read', 'write', 'follow'])).token;
    }
    token['app'] = await appToken(s.url, app, 'read');
    const follow = await call('bob', 'POST', `/api/v1/accounts/${ids['amy']}/follow`);
    assert.equal(follow.status, 200);
    assert.equal(follow.body.following, true);

    for (const k of KINDS) post[k] = await postAs('amy', { status: `${k} post #matrix${k === 'direct' ? ' @cal' : ''}`, visibility: k });
    parent = await postAs('amy', { status: 'the parent', visibility: 'public' });
    for (const k of KINDS) reply[k] = await postAs('amy', { status: `${k} reply${k === 'direct' ? ' @cal' : ''}`, visibility: k, in_reply_to_id: parent });
  });
  after(async () => {
    await s?.stop();
  });

  it('answers GET /api/v1/statuses/:id with 200 only to those who may see it, 404 to the rest', async () => {
    for (const v of VIEWERS) {
      for (const k of KINDS) {
        const r = await call(v, 'GET', `/api/v1/statuses/${post[k]}`);
        const may = MAY_SEE[v].includes(k);
        assert.equal(r.status, may ? 200 : 404, `${v} reading ${k}`);
        assert.match(r.type ?? '', /^application\/json/);
        if (may) assert.equal(r.body.visibility, k);
      }
    }
  });

  it("shows each viewer exactly the statuses they may see on amy's account timeline", async () => {
    for (const v of VIEWERS) {
      const got = kindsIn(await list(v, `/api/v1/accounts/${ids['amy']}/statuses?limit=40`), post);
      assert.deepEqual(got, MAY_SEE[v], v);
    }
  });

  it('shows only public statuses on the public timeline, never unlisted ones, to every viewer', async () => {
    for (const v of VIEWERS) {
      for (const q of ['', '?local=true']) {
        const got = await list(v, `/api/v1/timelines/public${q}`);
        assert.deepEqual(kindsIn(got, post), ['public'], `${v} ${q}`);
        assert.deepEqual(kindsIn(got, reply), ['public'], `${v} ${q} replies`);
        assert.ok(got.every((x: Json) => x.visibility === 'public'), v);
      }
      assert.deepEqual(kindsIn(await list(v, '/api/v1/timelines/public?remote=true'), post), [], v);
    }
  });

  it('shows only public statuses on the hashtag timeline', async () => {
    for (const v of VIEWERS) {
      assert.deepEqual(kindsIn(await list(v, '/api/v1/timelines/tag/matrix'), post), ['public'], v);
      assert.deepEqual(kindsIn(await list(v, '/api/v1/timelines/tag/MATRIX?local=true'), post), ['public'], v);
    }
  });

  it('puts on home what the viewer follows or is addressed: bob all but direct, cal the direct one, dee nothing', async () => {
    const expected: Partial<Record<Viewer, readonly Kind[]>> = { amy: KINDS, bob: ['public', 'unlisted', 'private'], cal: ['direct'], dee: [] };
    for (const [v, kinds] of Object.entries(expected) as [Viewer, readonly Kind[]][]) {
      const got = await list(v, '/api/v1/timelines/home?limit=40');
      assert.deepEqual(kindsIn(got, post), kinds, v);
      assert.deepEqual(kindsIn(got, reply), kinds, `${v} replies`);
    }
    assert.equal((await call(undefined, 'GET', '/api/v1/timelines/home')).status, 401);
    assert.equal((await call('app', 'GET', '/api/v1/timelines/home')).status, 422, 'home needs a member');
  });

  it('shows in the context of a public parent only the replies the viewer may see', async () => {
    for (const v of VIEWERS) {
      const r = await call(v, 'GET', `/api/v1/statuses/${parent}/context`);
      assert.equal(r.status, 200, v);
      assert.deepEqual(kindsIn(r.body.descendants, reply), MAY_SEE[v], v);
      assert.deepEqual(r.body.ancestors, []);
    }
  });

  it('shows a reply its parent as an ancestor only when the viewer may see the parent', async () => {
    // cal answers amy's direct status; bob answers her private one (both visible to cal / bob only among viewers).
    const calReply = await postAs('cal', { status: 'publicly answering', visibility: 'public', in_reply_to_id: post['direct'] });
    const bobReply = await postAs('bob', { status: 'publicly answering', visibility: 'public', in_reply_to_id: post['private'] });
    for (const v of VIEWERS) {
      const c = await call(v, 'GET', `/api/v1/statuses/${calReply}/context`);
      assert.equal(c.status, 200);
      assert.deepEqual(c.body.ancestors.map((x: Json) => x.id), MAY_SEE[v].includes('direct') ? [post['direct']] : [], v);
      const b = await call(v, 'GET', `/api/v1/statuses/${bobReply}/context`);
      assert.deepEqual(b.body.ancestors.map((x: Json) => x.id), MAY_SEE[v].includes('private') ? [post['private']] : [], v);
    }
  });

  it('counts in replies_count only the public and unlisted replies, as Mastodon does', async () => {
    // Counting private and direct replies tells everyone that a hidden conversation exists.
    for (const v of ['anonymous', 'dee'] as const) {
      const r = await call(v, 'GET', `/api/v1/statuses/${parent}`);
      assert.equal(r.body.replies_count, 2, v);
    }
  });

  it('lists a direct status\'s mentions only to those who may read it', async () => {
    const r = await call('cal', 'GET', `/api/v1/statuses/${post['direct']}`);
    assert.deepEqual(r.body.mentions.map((m: Json) => m.acct), ['cal']);
    assert.equal((await call('dee', 'GET', `/api/v1/statuses/${post['direct']}/context`)).status, 404);
  });

  it('takes private statuses away from a follower who unfollows', async () => {
    const eve = 'eve' as const;
    assert.equal((await call(eve, 'POST', `/api/v1/accounts/${ids['amy']}/follow`)).status, 200);
    assert.equal((await call(eve, 'GET', `/api/v1/statuses/${post['private']}`)).status, 200);
    assert.deepEqual(kindsIn(await list(eve, '/api/v1/timelines/home'), post), ['public', 'unlisted', 'private']);
    assert.equal((await call(eve, 'POST', `/api/v1/accounts/${ids['amy']}/unfollow`)).status, 200);
    assert.equal((await call(eve, 'GET', `/api/v1/statuses/${post['private']}`)).status, 404);
    assert.deepEqual(kindsIn(await list(eve, `/api/v1/accounts/${ids['amy']}/statuses`), post), ['public', 'unlisted']);
    assert.deepEqual(kindsIn(await list(eve, '/api/v1/timelines/home'), post), []);
    assert.equal((await call(eve, 'POST', '/api/v1/statuses', { status: 'x', in_reply_to_id: post['private'] })).status, 404);
  });
});
