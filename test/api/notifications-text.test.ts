// The notifications page is written as text with each sender's account from its kept JSON (notification-views.ts
// renderNotificationsText); one notification by id is rendered as objects. Both must say the same: every entry of the
// page equals the notification fetched by its id, for each kind, with the senders' counts as they are now.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, type Json } from '../support/api.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';

describe('the notifications page as text', () => {
  let s: TestServer;
  let m: LocalMembers;

  before(async () => {
    s = await startTestServer();
    m = await createMembers(s, ['nia', 'oto', 'pam']);
  });
  after(() => s?.stop());

  const call = async (who: string, method: string, path: string, body?: unknown): Promise<Json> => {
    const r = await api(s.url, m.token[who], method, path, body);
    assert.equal(r.status, 200, `${method} ${path}: ${JSON.stringify(r.body)}`);
    return r.body;
  };

  it('shows each notification as its own GET shows it, twice over (the second time from the caches)', async () => {
    const mine = await call('nia', 'POST', '/api/v1/statuses', { status: 'notice me', visibility: 'public' });
    await call('oto', 'POST', `/api/v1/accounts/${m.id['nia']}/follow`);
    await call('oto', 'POST', `/api/v1/statuses/${mine.id}/favourite`);
    await call('pam', 'POST', `/api/v1/statuses/${mine.id}/reblog`);
    await call('pam', 'POST', '/api/v1/statuses', { status: '@nia hello there', visibility: 'public' });
    for (let round = 0; round < 2; round++) {
      const page = (await call('nia', 'GET', '/api/v1/notifications')) as Json[];
      assert.deepEqual(new Set(page.map((n) => n.type)), new Set(['follow', 'favourite', 'reblog', 'mention']));
      for (const n of page) assert.deepEqual(n, await call('nia', 'GET', `/api/v1/notifications/${n.id}`), n.type);
      // A count moves between rounds: the page must show it as it is now, not as the kept JSON was made.
      if (round === 0) await call('pam', 'POST', `/api/v1/accounts/${m.id['oto']}/follow`);
      else assert.equal(page.find((n) => n.type === 'follow')?.account.followers_count, 1);
    }
  });
});
