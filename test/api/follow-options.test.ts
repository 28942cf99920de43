// Follow options over real HTTP: notify (a `status` notification for each new post, as Mastodon sends them),
// reblogs (boosts of that account in home or not) and languages[] (which of its posts reach home); following again
// changes them; a locked account's approval keeps what was asked; and between two servers, a followed remote
// member's post notifies. Relationships show showing_reblogs, notifying and languages.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { adminToken, api, FED_ENV, type Json } from '../support/api.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

describe('follow options', () => {
  let s: TestServer;
  let m: LocalMembers;

  const call = (who: string, method: string, path: string, body?: unknown) => api(s.url, m.token[who], method, path, body);
  const post = async (who: string, body: Json): Promise<string> => {
    const r = await call(who, 'POST', '/api/v1/statuses', body);
    assert.equal(r.status, 200, r.text);
    return r.body.id;
  };
  const relationship = async (who: string, other: string) => (await call(who, 'GET', `/api/v1/accounts/relationships?id[]=${m.id[other]}`)).body[0];
  const statusNotes = async (who: string) =>
    ((await call(who, 'GET', '/api/v1/notifications?types[]=status')).body as Json[]).map((n) => [n.account.username, n.status.id]);
  const home = async (who: string) => ((await call(who, 'GET', '/api/v1/timelines/home?limit=40')).body as Json[]).map((x) => x.id as string);

  before(async () => {
    s = await startTestServer();
    m = await createMembers(s, ['fay', 'gus', 'hal', 'lin']);
  });
  after(async () => s?.stop());

  it('notifies a follower who asked of each new post, but not of boosts, direct posts or replies to others', async () => {
    const followed = await call('gus', 'POST', `/api/v1/accounts/${m.id['fay']}/follow`, { notify: true });
    assert.equal(followed.status, 200, followed.text);
    assert.deepEqual([followed.body.following, followed.body.notifying, followed.body.showing_reblogs, followed.body.languages], [true, true, true, null]);
    assert.equal((await call('hal', 'POST', `/api/v1/accounts/${m.id['fay']}/follow`)).body.notifying, false);

    const first = await post('fay', { status: 'news' });
    const thread = await post('fay', { status: 'more news', in_reply_to_id: first });
    const halPost = await post('hal', { status: 'elsewhere' });
    await post('fay', { status: 'a reply to hal', in_reply_to_id: halPost });
    await post('fay', { status: '@hal just us', visibility: 'direct' });
    await call('fay', 'POST', `/api/v1/statuses/${halPost}/reblog`);
    const quiet = await post('fay', { status: 'followers only', visibility: 'private' });
    const mentioning = await post('fay', { status: 'hey @gus' });
    assert.deepEqual(await statusNotes('gus'), [
      ['fay', quiet],
      ['fay', thread],
      ['fay', first],
    ]);
    const mention = ((await call('gus', 'GET', '/api/v1/notifications')).body as Json[]).find((n) => n.status?.id === mentioning);
    assert.equal(mention.type, 'mention', 'a post mentioning the follower is a mention, not a status notification too');
    assert.deepEqual(await statusNotes('hal'), [], 'hal follows without notify');

    const off = await call('gus', 'POST', `/api/v1/accounts/${m.id['fay']}/follow`, { notify: false });
    assert.equal(off.body.notifying, false);
    await post('fay', { status: 'unnoticed' });
    assert.equal((await statusNotes('gus')).length, 3);
  });

  it('keeps boosts of an account followed with reblogs=false out of home, and lets them back in when asked', async () => {
    const linPost = await post('lin', { status: 'boost me' });
    const boost = (await call('fay', 'POST', `/api/v1/statuses/${linPost}/reblog`)).body.id as string;
    const own = await post('fay', { status: 'my own words' });
    const r = await call('hal', 'POST', `/api/v1/accounts/${m.id['fay']}/follow`, { reblogs: 'false' });
    assert.equal(r.body.showing_reblogs, false);
    const without = await home('hal');
    assert.ok(without.includes(own));
    assert.ok(!without.includes(boost), 'the boost is hidden');
    assert.equal((await call('hal', 'POST', `/api/v1/accounts/${m.id['fay']}/follow`, { reblogs: true })).body.showing_reblogs, true);
    assert.ok((await home('hal')).includes(boost));
  });

  it('keeps only posts in the chosen languages (or of unknown language) in home', async () => {
    const r = await call('fay', 'POST', `/api/v1/accounts/${m.id['lin']}/follow`, { languages: ['de', 'fr'] });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body.languages, ['de', 'fr']);
    const de = await post('lin', { status: 'Guten Tag', language: 'de' });
    const en = await post('lin', { status: 'Good day', language: 'en' });
    const none = await post('lin', { status: '…', language: '' });
    const shown = await home('fay');
    assert.ok(shown.includes(de) && shown.includes(none));
    assert.ok(!shown.includes(en));
    assert.deepEqual((await call('fay', 'POST', `/api/v1/accounts/${m.id['lin']}/follow`, { languages: null })).body.languages, null);
    assert.ok((await home('fay')).includes(en), 'every language again');
    const bad = await call('fay', 'POST', `/api/v1/accounts/${m.id['lin']}/follow`, { languages: ['english!'] });
    assert.equal(bad.status, 422);
    assert.match(bad.body.error, /languages/);
    assert.equal((await call('fay', 'POST', `/api/v1/accounts/${m.id['lin']}/follow`, { notify: 'maybe' })).status, 422);
  });

  it("keeps a request's options once a locked account approves it", async () => {
    assert.equal((await call('lin', 'PATCH', '/api/v1/accounts/update_credentials', { locked: true })).status, 200);
    const asked = await call('gus', 'POST', `/api/v1/accounts/${m.id['lin']}/follow`, { notify: true, reblogs: false });
    assert.deepEqual([asked.body.requested, asked.body.notifying, asked.body.showing_reblogs], [true, true, false]);
    assert.equal((await call('lin', 'POST', `/api/v1/follow_requests/${m.id['gus']}/authorize`)).status, 200);
    const now = await relationship('gus', 'lin');
    assert.deepEqual([now.following, now.notifying, now.showing_reblogs], [true, true, false]);
    const p = await post('lin', { status: 'for my approved followers', visibility: 'private' });
    assert.deepEqual((await statusNotes('gus'))[0], ['lin', p]);
  });
});

describe('follow notify between two servers', () => {
  let a: TestServer;
  let b: TestServer;

  before(async () => {
    [a, b] = await Promise.all([startTestServer(FED_ENV), startTestServer(FED_ENV)]);
  });
  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it('notifies a member when a remote account they follow with notify posts', async () => {
    const [tokenA, tokenB] = await Promise.all([adminToken(a), adminToken(b)]);
    const remote = (await api(b.url, tokenB, 'GET', `/api/v1/accounts/lookup?acct=admin@${new URL(a.url).host}`)).body;
    assert.equal((await api(b.url, tokenB, 'POST', `/api/v1/accounts/${remote.id}/follow`, { notify: true })).body.notifying, true);
    await eventually(async () => assert.equal((await api(b.url, tokenB, 'GET', `/api/v1/accounts/relationships?id[]=${remote.id}`)).body[0].following, true));
    const posted = (await api(a.url, tokenA, 'POST', '/api/v1/statuses', { status: 'from server A' })).body;
    await eventually(async () => {
      const notes = (await api(b.url, tokenB, 'GET', '/api/v1/notifications?types[]=status')).body as Json[];
      assert.deepEqual(
        notes.map((n) => [n.account.id, n.status.uri]),
        [[remote.id, posted.uri]],
      );
    });
  });
});
