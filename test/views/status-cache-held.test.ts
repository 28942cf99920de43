// A page whose statuses are in the rendered-status cache reads only what changes per page (issue 19): the render
// bundle leaves out the rows, authors, mentioned accounts and attachments of the statuses the caller holds rendered,
// and still has their counts and the viewer's flags. A boost of a held status, on the same page, still shows it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RenderBundleStore } from '../../src/store/render-bundle.js';
import { api, type Json } from '../support/api.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';

describe('a page of cached statuses', () => {
  let s: TestServer;
  let m: LocalMembers;

  const call = async (who: string, method: string, path: string, body?: unknown) => {
    const r = await api(s.url, m.token[who], method, path, body);
    assert.equal(r.status, 200, `${method} ${path}: ${JSON.stringify(r.body)}`);
    return r.body as Json;
  };

  before(async () => {
    s = await startTestServer();
    m = await createMembers(s, ['alice', 'bob', 'carol']);
    await call('alice', 'POST', `/api/v1/accounts/${m.id['bob']}/follow`);
    await call('alice', 'POST', `/api/v1/accounts/${m.id['carol']}/follow`);
  });
  after(() => s?.stop());

  it('reads no row, author or attachment of a held status, but its counts and flags', async () => {
    const p = await call('bob', 'POST', '/api/v1/statuses', { status: 'held @carol', visibility: 'public' });
    await call('alice', 'POST', `/api/v1/statuses/${p.id}/favourite`);
    const bundles = new RenderBundleStore(s.app.db);
    const full = await bundles.load([p.id], m.id['alice']!);
    assert.ok(full.statuses.has(p.id) && full.accounts.has(m.id['bob']!) && full.accounts.has(m.id['carol']!));
    const held = await bundles.load([p.id], m.id['alice']!, [], [p.id]);
    assert.equal(held.statuses.size, 0);
    assert.equal(held.accounts.size, 0);
    assert.deepEqual(held.counts.get(p.id)?.favourites, 1);
    assert.ok(held.flags?.favourited.has(p.id));
    assert.equal(held.accountCounts.get(m.id['bob']!)?.statuses, 1);
  });

  it('shows a boost of a held status on the same page, again and again', async () => {
    const p = await call('carol', 'POST', '/api/v1/statuses', { status: 'boost me', visibility: 'public' });
    const boost = await call('bob', 'POST', `/api/v1/statuses/${p.id}/reblog`);
    for (let i = 0; i < 3; i++) {
      const page = (await call('alice', 'GET', '/api/v1/timelines/home?limit=40')) as Json[];
      assert.equal(page.find((x) => x.id === boost.id)?.reblog?.id, p.id, `page ${i}: the boost with its status`);
      assert.equal(page.find((x) => x.id === p.id)?.content, '<p>boost me</p>', `page ${i}: the status itself`);
    }
  });
});
