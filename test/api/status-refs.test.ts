// Timelines name their statuses by row version (store/status-refs.ts) and take the rendered statuses from the cache
// when it holds those very versions (views/status-views.ts fromRefs). Here changes are written with the triggers off
// (session_replication_role = replica), so no node hears of them: only the row version can tell the page that a
// status changed. A change outside the status's row (its author's name) stays unseen: the page did come from the cache.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, type Json } from '../support/api.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';

describe('timeline pages by row version', () => {
  let s: TestServer;
  let m: LocalMembers;

  before(async () => {
    s = await startTestServer();
    m = await createMembers(s, ['ada', 'ben', 'cy']);
    for (const who of ['ben', 'cy']) assert.equal((await api(s.url, m.token['ada'], 'POST', `/api/v1/accounts/${m.id[who]}/follow`)).status, 200);
  });
  after(() => s?.stop());

  const post = async (who: string, body: Record<string, unknown>): Promise<Json> => {
    const r = await api(s.url, m.token[who], 'POST', '/api/v1/statuses', body);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body;
  };
  const timeline = async (path: string): Promise<Json[]> => {
    const r = await api(s.url, m.token['ada'], 'GET', path);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body;
  };
  const home = () => timeline('/api/v1/timelines/home?limit=40');
  /** A change no node is told of: the cache's notifications are triggers, off for this transaction. */
  const untold = (sql: string, values: unknown[]) =>
    s.app.db.tx(async (q) => {
      await q.query('SET LOCAL session_replication_role = replica');
      const r = await q.query(sql, values);
      assert.equal(r.rowCount, 1);
    });

  it('serves a status edited behind its back in its new words, on every timeline, while an unedited one stays cached', async () => {
    const p = await post('ben', { status: 'old words #refs', visibility: 'public' });
    const q = await post('ben', { status: 'unedited', visibility: 'public' });
    for (let i = 0; i < 2; i++) assert.match((await home()).find((x) => x.id === p.id)?.content ?? '', /old words/);
    await untold('UPDATE accounts SET display_name = $2 WHERE id = $1', [m.id['ben'], 'Ben Renamed']);
    await untold(`UPDATE statuses SET content = '<p>new words</p>', text = 'new words', edited_at = now() WHERE id = $1`, [p.id]);
    const page = await home();
    const seen = page.find((x) => x.id === p.id);
    assert.equal(seen?.content, '<p>new words</p>', 'the home page served the cached old version');
    assert.notEqual(seen?.edited_at, null);
    // The rename was not told and lies outside q's row: q rendered afresh would show it, so q came from the cache.
    assert.notEqual(page.find((x) => x.id === q.id)?.account.display_name, 'Ben Renamed', 'the page was not served from the cache at all');
    for (const path of ['/api/v1/timelines/public?local=true', '/api/v1/timelines/tag/refs', `/api/v1/accounts/${m.id['ben']}/statuses`]) {
      assert.equal((await timeline(path)).find((x) => x.id === p.id)?.content, '<p>new words</p>', path);
    }
  });

  it('serves a boost whose original was edited behind its back with the original in its new words', async () => {
    const p = await post('ada', { status: 'boost me', visibility: 'public' });
    const boost = await api(s.url, m.token['cy'], 'POST', `/api/v1/statuses/${p.id}/reblog`);
    assert.equal(boost.status, 200);
    for (let i = 0; i < 2; i++) assert.equal((await home()).find((x) => x.id === boost.body.id)?.reblog?.content, '<p>boost me</p>');
    await untold(`UPDATE statuses SET content = '<p>boosted, then edited</p>', text = 'boosted, then edited', edited_at = now() WHERE id = $1`, [p.id]);
    assert.equal((await home()).find((x) => x.id === boost.body.id)?.reblog?.content, '<p>boosted, then edited</p>');
  });

  it('serves a reply edited behind its back in its new words in its thread', async () => {
    const root = await post('ada', { status: 'a thread', visibility: 'public' });
    const reply = await post('ben', { status: 'first reply', in_reply_to_id: root.id, visibility: 'public' });
    const context = async () => (await timeline(`/api/v1/statuses/${root.id}/context`)) as unknown as { descendants: Json[] };
    for (let i = 0; i < 2; i++) assert.equal((await context()).descendants[0]?.content, '<p>first reply</p>');
    await untold(`UPDATE statuses SET content = '<p>second thoughts</p>', text = 'second thoughts', edited_at = now() WHERE id = $1`, [reply.id]);
    assert.equal((await context()).descendants[0]?.content, '<p>second thoughts</p>');
  });

  it('leaves out a status deleted behind its back, and a boost of it', async () => {
    const p = await post('ben', { status: 'soon gone', visibility: 'public' });
    const boost = await api(s.url, m.token['cy'], 'POST', `/api/v1/statuses/${p.id}/reblog`);
    assert.equal(boost.status, 200);
    for (let i = 0; i < 2; i++) assert.ok((await home()).some((x) => x.id === p.id));
    await untold('UPDATE statuses SET deleted_at = now() WHERE id = $1', [p.id]);
    const after = await home();
    assert.ok(!after.some((x) => x.id === p.id || x.reblog?.id === p.id), JSON.stringify(after.map((x) => x.id)));
  });

  it('shows counts and the viewer’s flags fresh on a page served from the cache', async () => {
    const p = await post('ben', { status: 'count me', visibility: 'public' });
    for (let i = 0; i < 2; i++) assert.equal((await home()).find((x) => x.id === p.id)?.favourites_count, 0);
    assert.equal((await api(s.url, m.token['ada'], 'POST', `/api/v1/statuses/${p.id}/favourite`)).status, 200);
    assert.equal((await api(s.url, m.token['cy'], 'POST', `/api/v1/statuses/${p.id}/reblog`)).status, 200);
    assert.equal((await api(s.url, m.token['ada'], 'POST', `/api/v1/statuses/${p.id}/bookmark`)).status, 200);
    const seen = (await home()).find((x) => x.id === p.id);
    assert.equal(seen?.favourites_count, 1);
    assert.equal(seen?.reblogs_count, 1);
    assert.equal(seen?.favourited, true);
    assert.equal(seen?.bookmarked, true);
    assert.equal(seen?.reblogged, false);
  });
});
