// The transport pitfalls the first tests left open (reference/history.md P27–P29, P33; PITFALLS.md): a 401 caused by
// the form of our signature, a server that blocks us (seen by the member in the history entity, never retried in a
// loop), an actor without an outbox, SSRF through an outbox or a `next`, and a later page gone missing (the walk ends,
// what was read is kept). Jobs run with the real runner; the end-to-end cases go through the API and the scheduler.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FED_ENV, api, type Json } from '../support/api.js';
import { remoteAccount, runHistory, statusesOf } from '../support/history-harness.js';
import { startHistoryOrigin, type HistoryOrigin, type OriginRoute } from '../support/history-origin.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

const PUBLIC = 'https://www.w3.org/ns/activitystreams#Public';

describe('remote history: signatures, refusals, SSRF and missing pages (P27–P29, P33)', () => {
  let s: TestServer;
  let o: HistoryOrigin;
  let m: LocalMembers;
  let n = 0;

  before(async () => {
    s = await startTestServer(FED_ENV);
    o = await startHistoryOrigin();
    m = await createMembers(s, ['reader']);
  });
  after(async () => {
    await o.close();
    await s.stop();
  });

  /** A fresh actor whose outbox answers `route`. */
  async function outbox(route: OriginRoute) {
    const name = `p${++n}`;
    const id = o.actor(name);
    const path = `/users/${name}/outbox`;
    o.serve(path, route);
    return { name, id, path, account: await remoteAccount(s, id) };
  }

  const create = (id: string, i: number) => ({
    id: `${id}/statuses/${i}/activity`,
    type: 'Create',
    actor: id,
    to: [PUBLIC],
    object: { id: `${id}/statuses/${i}`, type: 'Note', attributedTo: id, to: [PUBLIC], content: `<p>post ${i}</p>`, published: `2024-01-0${i}T00:00:00Z` },
  });
  const page = (url: string, items: unknown[], next?: unknown) => ({
    json: { id: url, type: 'OrderedCollectionPage', orderedItems: items, ...(next !== undefined && { next }) },
  });
  /** A Mastodon-shaped outbox: the collection names `?page=true`, which leads to `?page=2`. */
  function paged(a: { id: string; path: string }) {
    o.serve(a.path, { json: { id: `${a.id}/outbox`, type: 'OrderedCollection', totalItems: 2, first: `${a.id}/outbox?page=true` } });
    o.serve(`${a.path}?page=true`, page(`${a.id}/outbox?page=true`, [create(a.id, 2)], `${a.id}/outbox?page=2`));
    o.serve(`${a.path}?page=2`, page(`${a.id}/outbox?page=2`, [create(a.id, 1)]));
  }
  const texts = async (accountId: string) => (await statusesOf(s, m.token['reader']!, accountId)).map((st: Json) => st.content as string);

  it('P27: a 401 from the signature’s form is retried once with the other (request-target); the form that worked is kept', async () => {
    const ours = ((await api(s.url, undefined, 'GET', '/actor')).body as Json).publicKey.id as string;
    try {
      // An origin that verifies (request-target) without the query string only (Mastodon's old default).
      o.verifySignatures = 'without-query';
      const a = await outbox({});
      paged(a);
      const first = await runHistory(s, a.account, { budget: 3 });
      assert.deepEqual(first.outcome, { kind: 'complete' });
      assert.equal(first.ledger.imported, 2);
      assert.equal(o.requests(a.path), 1, 'no query string: one form, verified at once');
      assert.equal(o.requests(`${a.path}?page=true`), 2, 'refused with the query string, retried without it');
      assert.equal(o.requests(`${a.path}?page=2`), 1, 'the form that worked is used first for the origin from then on');

      // The origin changes its mind (verifies with the query string, as the spec reads): one retry, then that form.
      o.verifySignatures = 'with-query';
      const b = await outbox({});
      paged(b);
      assert.deepEqual((await runHistory(s, b.account, { budget: 3 })).outcome, { kind: 'complete' });
      assert.equal(o.requests(`${b.path}?page=true`), 2);
      assert.equal(o.requests(`${b.path}?page=2`), 1);
      // keyId: the form our actor document names (`…/actor#main-key`), found by the origin under exactly that id.
      assert.ok(o.verifiedKeyIds.length >= 6);
      for (const k of o.verifiedKeyIds) assert.equal(k, ours);
      assert.match(ours, /\/actor#main-key$/);
    } finally {
      o.verifySignatures = null;
    }
  });

  it('P27, P28: a server refusing every signature is asked twice at most for a page, never in a loop, and ends forbidden', async () => {
    const a = await outbox({});
    paged(a);
    o.serve(`${a.path}?page=true`, { status: 401, json: { error: 'Verification failed' } });
    assert.deepEqual((await runHistory(s, a.account)).outcome, { kind: 'unsupported', reason: 'forbidden' });
    assert.equal(o.requests(`${a.path}?page=true`), 2);
    const b = await outbox({ status: 401, json: { error: 'Request not signed' } });
    assert.deepEqual((await runHistory(s, b.account)).outcome, { kind: 'unsupported', reason: 'forbidden' });
    assert.equal(o.requests(b.path), 1, 'no query string: no other form to try');
  });

  it('P28, P29: a member asking sees a blocking or gone server as unsupported with its reason; asking again fetches nothing', async () => {
    await s.app.history.settings.update({ enabled: true });
    try {
      for (const [status, reason] of [
        [403, 'forbidden'],
        [401, 'forbidden'],
        [410, 'gone'],
      ] as const) {
        const a = await outbox({ status, json: { error: 'Your domain is blocked' } });
        const asked = await api(s.url, m.token['reader'], 'POST', `/api/v1/accounts/${a.account.id}/remote_history/fetch`);
        assert.equal(asked.status, 202, asked.text);
        let seen: Json;
        await eventually(async () => {
          const r = await api(s.url, m.token['reader'], 'GET', `/api/v1/accounts/${a.account.id}/remote_history`);
          assert.equal(r.body.state, 'unsupported', `HTTP ${status}: ${r.text}`);
          seen = r.body;
        });
        assert.equal(seen.reason, reason);
        assert.equal(seen.retry_at, null);
        assert.equal(seen.can_load_older, false);
        assert.equal(o.requests(a.path), 1);
        // Lasting: neither the member's ask nor a profile view fetches again.
        const again = await api(s.url, m.token['reader'], 'POST', `/api/v1/accounts/${a.account.id}/remote_history/fetch`);
        assert.deepEqual([again.status, again.body], [200, seen]);
        await statusesOf(s, m.token['reader']!, a.account.id);
        assert.equal(o.requests(a.path), 1);
      }

      // P29: an actor without an outbox, or with one no http(s) URL, is no_outbox at once: nothing is fetched.
      for (const outboxUrl of [null, 'ftp://127.0.0.1/outbox']) {
        const name = `p${++n}`;
        const account = await remoteAccount(s, o.actor(name, { outbox: outboxUrl }));
        const before = o.requests();
        const r = await api(s.url, m.token['reader'], 'POST', `/api/v1/accounts/${account.id}/remote_history/fetch`);
        assert.equal(r.status, 200, r.text);
        assert.deepEqual([r.body.state, r.body.reason], ['unsupported', 'no_outbox']);
        // (The actor's resolution may still be counting its followers: only history's own requests matter here.)
        assert.deepEqual(
          o.requestLog.slice(before).filter((p) => !p.endsWith('/followers') && !p.endsWith('/following')),
          [],
          String(outboxUrl),
        );
      }
    } finally {
      await s.app.history.settings.update({ enabled: false });
    }
  });

  it('P33: an actor whose host now resolves to a forbidden address is refused before any connection (federation_policy)', async () => {
    const a = await outbox({});
    o.serve(a.path, page(`${a.id}/outbox`, [create(a.id, 1)]));
    // 0.0.0.0 (unspecified) reaches this loopback origin if connected to: the address guard must refuse it first.
    const forbidden = a.id.replace('127.0.0.1', '0.0.0.0');
    await s.app.db.exec('UPDATE accounts SET uri = $2, outbox_url = $3 WHERE id = $1', [a.account.id, forbidden, `${forbidden}/outbox`]);
    const moved = (await s.app.federation.accounts.byId(a.account.id))!;
    assert.deepEqual((await runHistory(s, moved)).outcome, { kind: 'unsupported', reason: 'federation_policy' });
    assert.equal(o.requests(a.path), 0);
  });

  it('P33: a next page on a private address, or not http(s), or with credentials, is refused without a request', async () => {
    const port = new URL(o.url).port;
    for (const [next, reason] of [
      ['file:///etc/passwd', 'federation_policy'],
      [{ type: 'Link', href: `gopher://127.0.0.1:${port}/users/x` }, 'federation_policy'],
      [`http://user:secret@127.0.0.1:${port}/users/x/outbox?page=2`, 'federation_policy'],
      ['http://169.254.169.254/latest/meta-data/', 'cross_origin'],
      ['http://10.0.0.1/outbox?page=2', 'cross_origin'],
    ] as const) {
      const a = await outbox({});
      o.serve(a.path, page(`${a.id}/outbox`, [create(a.id, 1)], next));
      o.serve(`/users/${a.name}/outbox?page=2`, page(`${a.id}/outbox?page=2`, [create(a.id, 2)]));
      const t = Date.now();
      const { outcome, ledger } = await runHistory(s, a.account);
      assert.deepEqual(outcome, { kind: 'unsupported', reason }, JSON.stringify(next));
      assert.ok(Date.now() - t < 2000, 'refused at once, not after a timeout');
      assert.equal(ledger.imported, 1, 'the page read before is kept');
      assert.equal(ledger.cursor, null, 'the refused page is not kept as the cursor');
      assert.equal(o.requests(`/users/${a.name}/outbox?page=2`), 0);
    }
  });

  it('a 404 on a later page ends the walk as complete with what was read, in this job or an earlier one', async () => {
    // This job read page 1; page 2 is gone.
    const a = await outbox({});
    o.serve(a.path, page(`${a.id}/outbox`, [create(a.id, 2)], `${a.id}/outbox?page=2`));
    const within = await runHistory(s, a.account);
    assert.deepEqual(within.outcome, { kind: 'complete' });
    assert.equal(within.ledger.imported, 1);
    assert.equal(o.requests(`${a.path}?page=2`), 1);
    assert.deepEqual(await texts(a.account.id), ['<p>post 2</p>']);

    // An earlier job left the cursor at page 3 ("Load older"); that page is gone now.
    const b = await outbox({});
    paged(b);
    const earlier = await runHistory(s, b.account, { budget: 2 });
    assert.deepEqual(earlier.outcome, { kind: 'partial' });
    assert.equal(earlier.ledger.cursor, `${b.id}/outbox?page=2`);
    o.serve(`${b.path}?page=2`, { status: 404, json: { error: 'Record not found' } });
    const later = await runHistory(s, b.account, { cursor: earlier.ledger.cursor!, budget: 1 });
    assert.deepEqual(later.outcome, { kind: 'complete' });
    assert.deepEqual(await texts(b.account.id), ['<p>post 2</p>']);

    // Nothing read yet: the outbox missing, or its first page missing, is still not_found.
    const c = await outbox({ status: 404, json: { error: 'Record not found' } });
    assert.deepEqual((await runHistory(s, c.account)).outcome, { kind: 'unsupported', reason: 'not_found' });
    const d = await outbox({});
    o.serve(d.path, { json: { id: `${d.id}/outbox`, type: 'OrderedCollection', first: `${d.id}/outbox?page=true` } });
    o.serve(`${d.path}?page=true`, { status: 404, json: { error: 'Record not found' } });
    assert.deepEqual((await runHistory(s, d.account)).outcome, { kind: 'unsupported', reason: 'not_found' });
    assert.equal(o.requests(`${d.path}?page=true`), 1);
  });
});
