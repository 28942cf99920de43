// The rendered-account cache across two server processes on one database: node B has alice's notification pages
// read (twice: the accounts they name are then kept rendered) and node A changes an account named there; B's very
// next page shows the change (a new display name, a new avatar; a suspension drops the account). A change B is never told of stays
// unseen (B does keep accounts), which is what the tests above would see without the invalidation.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, type Json } from '../support/api.js';
import { png } from '../support/media.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';
import { freePort, startTestServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

describe('the rendered-account cache across two nodes', () => {
  let a: TestServer;
  let b: ServerProcess;
  let m: LocalMembers;
  let boss: string;

  before(async () => {
    a = await startTestServer();
    b = await startServerProcess({ databaseUrl: a.databaseUrl, port: await freePort() });
    m = await createMembers(a, ['alice', 'bob', 'carol', 'dan', 'boss'], { boss: 'admin' });
    boss = await m.tokenFor('boss', ['admin:read', 'admin:write']);
    const p = await api(a.url, m.token['alice'], 'POST', '/api/v1/statuses', { status: 'likeable' });
    assert.equal(p.status, 200);
    for (const who of ['bob', 'carol', 'dan']) {
      assert.equal((await api(a.url, m.token[who], 'POST', `/api/v1/statuses/${p.body.id}/favourite`)).status, 200);
      assert.equal((await api(a.url, m.token[who], 'POST', `/api/v1/accounts/${m.id['alice']}/follow`)).status, 200);
    }
    await eventually(async () => assert.equal((await v1()).length, 6));
  });
  after(async () => {
    if (b) {
      b.child.kill('SIGTERM');
      assert.equal(await b.exited, 0, `node B exits cleanly on SIGTERM:\n${b.output()}`);
    }
    await a?.stop();
  });

  const grouped = async (query = ''): Promise<Json> => {
    const r = await api(b.url, m.token['alice'], 'GET', `/api/v2/notifications${query}`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body;
  };
  const v1 = async (): Promise<Json[]> => {
    const r = await api(b.url, m.token['alice'], 'GET', '/api/v1/notifications');
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body;
  };
  /** The account as B's pages show it: in the grouped page's accounts, and in each v1 notification it sent. */
  const shownOnB = async (who: string): Promise<{ grouped: Json | undefined; v1: Json[] }> => ({
    grouped: (await grouped()).accounts.find((x: Json) => x.id === m.id[who]),
    v1: (await v1()).filter((n) => n.account.id === m.id[who]).map((n) => n.account),
  });
  /** B reads alice's pages twice: the second time with the accounts from its cache. */
  const cachedOnB = async () => {
    for (let i = 0; i < 2; i++) {
      await grouped();
      await grouped('?expand_accounts=partial_avatars');
      await v1();
    }
  };
  /** A change made without the triggers' notifications: what a node that missed them would not know. */
  const untold = (who: string, name: string) =>
    a.app.db.tx(async (q) => {
      await q.query('SET LOCAL session_replication_role = replica');
      await q.query('UPDATE accounts SET display_name = $2 WHERE id = $1', [m.id[who], name]);
    });
  /** Each node writes its own base URL: the file is what changes. */
  const path = (url: string) => new URL(url).pathname;
  const patchForm = async (who: string, entries: [string, string | Blob][]) => {
    const form = new FormData();
    for (const [k, v] of entries) {
      if (typeof v === 'string') form.append(k, v);
      else form.append(k, v, 'picture.png');
    }
    const res = await fetch(`${a.url}/api/v1/accounts/update_credentials`, {
      method: 'PATCH',
      headers: { Authorization: `Bearer ${m.token[who]}` },
      body: form,
    });
    assert.equal(res.status, 200);
    return (await res.json()) as Json;
  };

  it("an account's new display name on A is in B's next grouped and v1 pages", async () => {
    await cachedOnB();
    assert.notEqual((await shownOnB('bob')).grouped?.display_name, 'Robert');
    await patchForm('bob', [['display_name', 'Robert']]);
    const shown = await shownOnB('bob');
    assert.equal(shown.grouped?.display_name, 'Robert');
    assert.deepEqual(
      shown.v1.map((x) => x.display_name),
      ['Robert', 'Robert'],
    );
  });

  it("a new avatar on A is in B's next page, full and partial", async () => {
    await cachedOnB();
    const before = path((await shownOnB('carol')).grouped?.avatar);
    const updated = path((await patchForm('carol', [['avatar', new Blob([png(12, 12)], { type: 'image/png' })]])).avatar);
    assert.notEqual(updated, before);
    const shown = await shownOnB('carol');
    assert.equal(path(shown.grouped?.avatar), updated);
    assert.deepEqual(
      shown.v1.map((x) => path(x.avatar)),
      [updated, updated],
    );
    const partial = await grouped('?expand_accounts=partial_avatars');
    const listed = [...partial.accounts, ...partial.partial_accounts].find((x: Json) => x.id === m.id['carol']);
    assert.equal(path(listed?.avatar), updated);
  });

  it('B does keep accounts: a change it is not told of stays unseen', async () => {
    await cachedOnB();
    const name = (await shownOnB('dan')).grouped?.display_name;
    await untold('dan', 'Untold');
    const shown = await shownOnB('dan');
    assert.equal(shown.grouped?.display_name, name);
    assert.deepEqual(
      shown.v1.map((x) => x.display_name),
      [name, name],
    );
  });

  it("a suspension on A drops the account on B: B's next page reads it afresh", async () => {
    await cachedOnB();
    await untold('dan', 'Untold again');
    assert.notEqual((await shownOnB('dan')).grouped?.display_name, 'Untold again', 'B serves its kept account');
    const r = await api(a.url, boss, 'POST', `/api/v1/admin/accounts/${m.id['dan']}/action`, { type: 'suspend' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const shown = await shownOnB('dan');
    assert.equal(shown.grouped?.display_name, 'Untold again');
    assert.deepEqual(
      shown.v1.map((x) => x.display_name),
      ['Untold again', 'Untold again'],
    );
  });

  // The account statuses route takes the account's row from the cache (issue 19: one statement a held page).
  it("an account deleted on A: B's page of its statuses is not found, though B held it", async () => {
    await cachedOnB();
    const statuses = () => api(b.url, m.token['alice'], 'GET', `/api/v1/accounts/${m.id['carol']}/statuses`);
    assert.equal((await statuses()).status, 200);
    await a.app.db.tx(async (q) => {
      await q.query('SET LOCAL session_replication_role = replica');
      await q.query('UPDATE accounts SET deleted_at = now() WHERE id = $1', [m.id['carol']]);
    });
    assert.equal((await statuses()).status, 200, 'B answers from the row it holds while it is not told');
    await a.app.db.exec('UPDATE accounts SET deleted_at = now() WHERE id = $1', [m.id['carol']]);
    await eventually(async () => assert.equal((await statuses()).status, 404));
  });
});
