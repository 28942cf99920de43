// Remote history's API over real HTTP (issue 16): a member reads a remote account's history record and asks for
// more of it; the first page of a remote account's statuses, viewed by a member, asks for the initial fetch; the
// operator's settings behind Manage federation, seen by a second node at once. Remote actors are served by fake peers
// on loopback, one peer (one origin) per concern, since the queue limits hold per origin.
//
// No history job may finish during these tests, so that "queued" stays observable whether or not a scheduler runs:
// every peer hangs GETs of outboxes (a job that starts stays `fetching`; the fetch timeout is raised past the test's
// length), so assertions accept `queued` or `fetching` where a scheduler could have claimed the job. In the
// origin-full case the origin's one running job is a row in `fetching` with a live lease, so no scheduler claims the
// two queued ones there.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RemoteHistoryStore } from '../../src/store/remote-history.js';
import { FED_ENV, api, form, type Json } from '../support/api.js';
import { startFakeActorPeer, type FakePeer } from '../support/fake-actor-peer.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { appToken, registerApp } from '../support/oauth.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

const ENTITY_KEYS = [
  'account_id',
  'attempts',
  'can_load_older',
  'enabled',
  'items_examined',
  'items_imported',
  'last_fetched_at',
  'pages_fetched',
  'reason',
  'retry_at',
  'state',
];

const WAITING = ['queued', 'fetching'];
const ENV = { ...FED_ENV, FEDERATION_FETCH_TIMEOUT_MS: '120000' };

interface Row {
  state: string;
  reason: string | null;
  cursor: string | null;
  pages_budget: number;
  queued_at: Date | null;
  viewed_at: Date;
}

describe('remote history API', () => {
  let s: TestServer;
  let s2: TestServer;
  let m: LocalMembers;
  /** One origin per concern: asking (pia, vic, unsupported actors), moves from later states, the full origin. */
  let ask: FakePeer;
  let moves: FakePeer;
  let full: FakePeer;
  let rush: FakePeer;
  let idle: FakePeer;
  let pair: FakePeer;
  /** Remote account ids by actor name. */
  const id: Record<string, string> = {};
  let operatorToken: string;

  const call = (token: string | undefined, method: string, path: string, body?: unknown) => api(s.url, token, method, path, body);
  const history = async (name: string, token = m.token['ann']): Promise<Json> => {
    const r = await call(token, 'GET', `/api/v1/accounts/${id[name]}/remote_history`);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(Object.keys(r.body).sort(), ENTITY_KEYS);
    return r.body;
  };
  const fetchMore = (name: string, token = m.token['ann']) => call(token, 'POST', `/api/v1/accounts/${id[name]}/remote_history/fetch`);
  const row = async (name: string): Promise<Row | undefined> =>
    s.app.db.one<Row & Record<string, unknown>>(
      'SELECT state, reason, cursor, pages_budget, queued_at, viewed_at FROM remote_histories WHERE account_id = $1',
      [id[name]],
    );
  const settings = async (): Promise<Json> => {
    const r = await call(operatorToken, 'GET', '/api/v1/admin/remote_history');
    assert.equal(r.status, 200, r.text);
    return r.body;
  };
  const resolve = async (peer: FakePeer, name: string, extra?: Record<string, unknown>) => {
    await peer.addActor(name, extra ? { extra } : {});
    id[name] = (await s.app.federation.remote.byUri(peer.actor(name).id)).id;
  };

  before(async () => {
    s = await startTestServer(ENV);
    [ask, moves, full, rush, idle, pair] = await Promise.all([
      startFakeActorPeer(),
      startFakeActorPeer(),
      startFakeActorPeer(),
      startFakeActorPeer(),
      startFakeActorPeer(),
      startFakeActorPeer(),
    ]);
    for (const p of [ask, moves, full, rush, idle, pair]) p.hangOutboxes(true);
    m = await createMembers(s, ['ann', 'mod', 'boss'], { mod: 'moderator', boss: 'admin' });
    operatorToken = await m.tokenFor('boss', ['admin:read', 'admin:write']);
    await resolve(ask, 'pia');
    await resolve(ask, 'vic');
    await resolve(ask, 'grp', { type: 'Group' });
    await resolve(ask, 'nobox', { outbox: undefined });
    // The outbox on another host than the actor (a CDN, say): refused, never fetched (P32).
    await resolve(ask, 'cdn', { outbox: `http://localhost:${new URL(ask.url).port}/users/cdn/outbox` });
    for (const n of ['par', 'done', 'late', 'gone']) await resolve(moves, n);
    for (const n of ['q0', 'q1', 'q2', 'q3']) await resolve(full, n);
    for (const n of ['r0', 'r1', 'r2', 'r3', 'r4', 'r5']) await resolve(rush, n);
    for (const n of ['i1', 'i2', 'i3', 'i4', 'i5', 'i6', 'i7', 'i8']) await resolve(idle, n);
    for (const n of ['w1', 'w2', 'w3', 'w4']) await resolve(pair, n);
  });
  after(async () => {
    await s2?.stop();
    await s?.stop();
    await Promise.all([ask, moves, full, rush, idle, pair].map((p) => p?.stop()));
  });

  it('starts disabled: the operator sees the defaults, a member sees an idle record and is refused a fetch with 403', async () => {
    assert.deepEqual(await settings(), { enabled: false, bare_iri: false, retention_days: 90 });
    assert.deepEqual(await history('pia'), {
      account_id: id['pia'],
      state: 'idle',
      enabled: false,
      attempts: 0,
      retry_at: null,
      items_examined: 0,
      items_imported: 0,
      pages_fetched: 0,
      last_fetched_at: null,
      reason: null,
      can_load_older: false,
    });
    const r = await fetchMore('pia');
    assert.equal(r.status, 403, r.text);
    assert.deepEqual(r.body, { error: 'Remote history is disabled on this server' });
    // Viewing the profile queues nothing either.
    const v = await call(m.token['ann'], 'GET', `/api/v1/accounts/${id['vic']}/statuses`);
    assert.equal(v.status, 200, v.text);
    assert.equal((await history('vic')).state, 'idle');
    assert.equal(await row('pia'), undefined);
    assert.equal(await row('vic'), undefined);
  });

  it('admin settings: refused without admin scopes or Manage federation; bad values 422 and nothing changes', async () => {
    const modToken = await m.tokenFor('mod', ['admin:read', 'admin:write']);
    const plain = await m.tokenFor('ann', ['admin:read', 'admin:write']);
    for (const token of [modToken, plain]) {
      for (const [method, body] of [
        ['GET', undefined],
        ['PUT', { enabled: true }],
      ] as const) {
        const r = await call(token, method, '/api/v1/admin/remote_history', body);
        assert.equal(r.status, 403, `${method}: ${r.text}`);
        assert.deepEqual(r.body, { error: 'This action is not allowed' });
      }
    }
    const readOnly = await m.tokenFor('boss', ['admin:read']);
    const put = await call(readOnly, 'PUT', '/api/v1/admin/remote_history', { enabled: true });
    assert.equal(put.status, 403, put.text);
    assert.deepEqual(put.body, { error: 'This action is outside the authorized scopes' });
    const memberScopes = await call(m.token['boss'], 'GET', '/api/v1/admin/remote_history');
    assert.equal(memberScopes.status, 403, memberScopes.text);

    const bad: [unknown, string][] = [
      [{ retention_days: 0 }, 'Validation failed: retention_days must be between 1 and 3650'],
      [{ retention_days: 3651 }, 'Validation failed: retention_days must be between 1 and 3650'],
      [{ retention_days: 2.5 }, 'Validation failed: retention_days must be a whole number of days'],
      [{ retention_days: 'soon' }, 'Validation failed: retention_days must be a whole number of days'],
      [{ enabled: 'maybe' }, 'Validation failed: enabled must be true or false'],
      [{ bare_iri: 3 }, 'Validation failed: bare_iri must be true or false'],
    ];
    for (const [body, error] of bad) {
      const r = await call(operatorToken, 'PUT', '/api/v1/admin/remote_history', body);
      assert.equal(r.status, 422, `${JSON.stringify(body)}: ${r.text}`);
      assert.deepEqual(r.body, { error }, JSON.stringify(body));
    }
    assert.deepEqual(await settings(), { enabled: false, bare_iri: false, retention_days: 90 });
  });

  it('the operator changes settings (JSON or form), and a second node sees each change without restarting', async () => {
    s2 = await startTestServer(ENV, s.databaseUrl);
    const onSecond = async () => {
      const r = await api(s2.url, operatorToken, 'GET', '/api/v1/admin/remote_history');
      assert.equal(r.status, 200, r.text);
      return r.body;
    };
    assert.deepEqual(await onSecond(), { enabled: false, bare_iri: false, retention_days: 90 }); // now cached there
    const r1 = await call(operatorToken, 'PUT', '/api/v1/admin/remote_history', { retention_days: 30, bare_iri: true });
    assert.equal(r1.status, 200, r1.text);
    assert.deepEqual(r1.body, { enabled: false, bare_iri: true, retention_days: 30 });
    await eventually(async () => assert.deepEqual(await onSecond(), { enabled: false, bare_iri: true, retention_days: 30 }));
    // Switched on through the second node: the first (which cached the last answer) sees it, and members too.
    const r2 = await api(s2.url, operatorToken, 'PUT', '/api/v1/admin/remote_history', form({ enabled: 'true', bare_iri: 'false' }));
    assert.equal(r2.status, 200, r2.text);
    assert.deepEqual(r2.body, { enabled: true, bare_iri: false, retention_days: 30 });
    await eventually(async () => assert.deepEqual(await settings(), { enabled: true, bare_iri: false, retention_days: 30 }));
    await eventually(async () => assert.equal((await history('pia')).enabled, true));
    // An empty body changes nothing and answers the settings.
    const r3 = await call(operatorToken, 'PUT', '/api/v1/admin/remote_history', {});
    assert.deepEqual([r3.status, r3.body], [200, { enabled: true, bare_iri: false, retention_days: 30 }]);
  });

  it('a fetch from idle queues the initial fetch (202); asking again coalesces (200, the same job)', async () => {
    const r = await fetchMore('pia');
    assert.equal(r.status, 202, r.text);
    assert.equal(r.body.state, 'queued');
    assert.equal(r.body.account_id, id['pia']);
    assert.equal(r.body.enabled, true);
    assert.equal(r.body.can_load_older, false);
    const queued = (await row('pia'))!;
    assert.equal(queued.cursor, `${ask.url}/users/pia/outbox`, 'the walk starts at the outbox');
    assert.equal(queued.pages_budget, 2, 'the initial fetch reads two collection documents');
    assert.ok(queued.queued_at);

    const again = await fetchMore('pia');
    assert.equal(again.status, 200, again.text);
    assert.ok(WAITING.includes(again.body.state), again.text);
    const after = (await row('pia'))!;
    assert.equal(after.queued_at?.getTime(), queued.queued_at?.getTime(), 'coalesced: the job was not queued again');
    assert.ok(WAITING.includes((await history('pia')).state));
  });

  it('viewing statuses queues the initial fetch only for a member on the first page, never anonymous, paged or pinned reads', async () => {
    const statuses = (token: string | undefined, query = '') => call(token, 'GET', `/api/v1/accounts/${id['vic']}/statuses${query}`);
    const app = await appToken(s.url, await registerApp(s.url, { scopes: 'read' }), 'read');
    for (const [token, query] of [
      [undefined, ''],
      [app, ''],
      [m.token['ann'], '?max_id=999999999999999'],
      [m.token['ann'], '?since_id=1'],
      [m.token['ann'], '?min_id=1'],
      [m.token['ann'], '?pinned=true'],
    ] as const) {
      const r = await statuses(token, query);
      assert.equal(r.status, 200, `${query}: ${r.text}`);
      assert.deepEqual(r.body, []);
      assert.equal(await row('vic'), undefined, `${token === undefined ? 'anonymous' : token === app ? 'app token' : query} queued a fetch`);
    }
    assert.equal((await history('vic')).state, 'idle');
    const first = await statuses(m.token['ann'], '?limit=20&exclude_replies=true');
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(first.body, []);
    assert.ok(WAITING.includes((await history('vic')).state));
    assert.equal((await row('vic'))!.pages_budget, 2);
  });

  it("viewing a profile refreshes its history's retention clock", async () => {
    await s.app.db.exec("UPDATE remote_histories SET viewed_at = now() - interval '30 days' WHERE account_id = $1", [id['vic']]);
    const before = Date.now();
    await call(m.token['ann'], 'GET', `/api/v1/accounts/${id['vic']}/statuses?max_id=999999999999999`);
    assert.ok((await row('vic'))!.viewed_at.getTime() < before - 86_400_000, 'a paged read is not a profile view');
    await call(m.token['ann'], 'GET', `/api/v1/accounts/${id['vic']}/statuses`);
    assert.ok((await row('vic'))!.viewed_at.getTime() >= before - 1_000);
  });

  it('actors whose history cannot be fetched are unsupported with a reason (200), and stay so', async () => {
    for (const [name, reason] of [
      ['grp', 'actor_type'],
      ['nobox', 'no_outbox'],
      ['cdn', 'cross_origin'],
    ] as const) {
      const r = await fetchMore(name);
      assert.equal(r.status, 200, `${name}: ${r.text}`);
      assert.equal(r.body.state, 'unsupported', name);
      assert.equal(r.body.reason, reason, name);
      assert.equal(r.body.can_load_older, false);
      assert.deepEqual(await history(name), r.body);
      const again = await fetchMore(name);
      assert.deepEqual([again.status, again.body], [200, r.body]);
    }
    assert.equal(ask.requests.filter((q) => q.path.startsWith('/users/cdn/outbox')).length, 0);
  });

  it('from partial, a fetch queues one more page where the walk stopped (202); complete, unsupported and early backoff change nothing (200)', async () => {
    const cursor = `${moves.url}/users/par/outbox?page=3`;
    const origin = new URL(moves.url).host;
    await s.app.db.exec(
      `INSERT INTO remote_histories (account_id, origin, state, cursor, items_examined, items_imported, pages_fetched, last_fetched_at)
       VALUES ($1, $2, 'partial', $3, 40, 31, 2, '2026-11-25T10:00:00Z')`,
      [id['par'], origin, cursor],
    );
    const shown = await history('par');
    assert.equal(shown.state, 'partial');
    assert.equal(shown.can_load_older, true, 'the member is offered Load older posts');
    assert.equal(shown.last_fetched_at, '2026-11-25T10:00:00.000Z');
    const r = await fetchMore('par');
    assert.equal(r.status, 202, r.text);
    assert.deepEqual(r.body, { ...shown, state: 'queued', can_load_older: false }, 'queued, its counts kept');
    const queued = (await row('par'))!;
    assert.equal(queued.cursor, cursor, 'Load older goes on from the cursor');
    assert.equal(queued.pages_budget, 1, 'one more page');

    const retryAt = new Date(Date.now() + 3_600_000);
    await s.app.db.exec(
      `INSERT INTO remote_histories (account_id, origin, state, reason, attempts, retry_at) VALUES
       ($1, $4, 'complete', NULL, 0, NULL), ($2, $4, 'backoff', 'rate_limited', 3, $5), ($3, $4, 'unsupported', 'gone', 0, NULL)`,
      [id['done'], id['late'], id['gone'], origin, retryAt],
    );
    for (const [name, state, reason] of [
      ['done', 'complete', null],
      ['late', 'backoff', 'rate_limited'],
      ['gone', 'unsupported', 'gone'],
    ] as const) {
      const before = await history(name);
      assert.equal(before.state, state);
      assert.equal(before.reason, reason);
      assert.equal(before.can_load_older, false);
      const f = await fetchMore(name);
      assert.equal(f.status, 200, `${name}: ${f.text}`);
      assert.deepEqual(f.body, before, `${name} unchanged`);
      assert.deepEqual(await history(name), before);
    }
    const late = await history('late');
    assert.equal(late.attempts, 3);
    assert.equal(late.retry_at, retryAt.toISOString());
    // Viewing the profile does not requeue anything either.
    await call(m.token['ann'], 'GET', `/api/v1/accounts/${id['done']}/statuses`);
    assert.equal((await history('done')).state, 'complete');
  });

  it('an origin with one running and two queued jobs refuses a third with 429 and Retry-After; nothing is queued', async () => {
    // The origin's running job (a live lease held by a node), as a scheduler leaves it mid-job.
    await s.app.db.exec(
      `INSERT INTO remote_histories (account_id, origin, state, cursor, pages_budget, queued_at, lease_owner, lease_until)
       VALUES ($1, $2, 'fetching', $3, 2, now(), 'another-node', now() + interval '1 hour')`,
      [id['q0'], new URL(full.url).host, `${full.url}/users/q0/outbox`],
    );
    for (const name of ['q1', 'q2']) {
      const r = await fetchMore(name);
      assert.equal(r.status, 202, `${name}: ${r.text}`);
      assert.equal(r.body.state, 'queued');
    }
    const refused = await fetchMore('q3');
    assert.equal(refused.status, 429, refused.text);
    assert.equal(refused.headers.get('retry-after'), '30');
    // Which limit: the origin has a job running and two more queued.
    assert.deepEqual(refused.body, {
      error: 'This server is already fetching history from that origin, with 2 more of its accounts queued (one job running and two queued per origin)',
    });
    assert.equal((await history('q3')).state, 'idle');
    assert.equal(await row('q3'), undefined);
    // The profile still shows (its view's request is refused quietly), and queues nothing.
    const v = await call(m.token['ann'], 'GET', `/api/v1/accounts/${id['q3']}/statuses`);
    assert.equal(v.status, 200, v.text);
    assert.equal(await row('q3'), undefined);
    // A queued actor asking again is the same job, not a new one: coalesced, not refused.
    const again = await fetchMore('q1');
    assert.deepEqual([again.status, again.body.state], [200, 'queued']);
    // Still full: the refused actor is refused again, and the queued ones wait behind the running job.
    assert.equal((await fetchMore('q3')).status, 429);
    assert.deepEqual([(await history('q1')).state, (await history('q2')).state], ['queued', 'queued']);
  });

  it('five requests at once for five actors of one origin (as from five nodes): two are queued, three refused', async () => {
    await s.app.db.exec(
      `INSERT INTO remote_histories (account_id, origin, state, cursor, pages_budget, queued_at, lease_owner, lease_until)
       VALUES ($1, $2, 'fetching', $3, 2, now(), 'another-node', now() + interval '1 hour')`,
      [id['r0'], new URL(rush.url).host, `${rush.url}/users/r0/outbox`],
    );
    const names = ['r1', 'r2', 'r3', 'r4', 'r5'];
    // Straight to the store, each on its own connection, so the transactions overlap as they would across nodes:
    // only the per-origin lock keeps their counts from all seeing an empty queue.
    const store = new RemoteHistoryStore(s.app.db);
    const accounts = await Promise.all(names.map(async (n) => (await s.app.federation.accounts.byId(id[n]!))!));
    const outcomes = await Promise.all(accounts.map((a) => store.request(a, 'older')));
    assert.deepEqual(outcomes.map((o) => o.kind).sort(), ['origin_busy', 'origin_busy', 'origin_busy', 'queued', 'queued']);
    // What members see afterwards.
    const states = await Promise.all(names.map(async (n) => (await history(n)).state));
    assert.deepEqual(states.sort(), ['idle', 'idle', 'idle', 'queued', 'queued']);
    const refused = names.find((_, k) => outcomes[k]!.kind === 'origin_busy')!;
    assert.equal((await fetchMore(refused)).status, 429);
  });

  it('three members asking at once for three actors of an idle origin are all queued (202, 202, 202); a fourth is refused', async () => {
    // Three members, three requests in the same instant: the first counts as the origin's running job at once, not
    // only once a scheduler has claimed it.
    const asked = await Promise.all(['i1', 'i2', 'i3'].map((n, k) => fetchMore(n, m.token[['ann', 'mod', 'boss'][k]!])));
    assert.deepEqual(
      asked.map((r) => r.status),
      [202, 202, 202],
      asked.map((r) => r.text).join('\n'),
    );
    const refused = await fetchMore('i4');
    assert.equal(refused.status, 429, refused.text);
    assert.equal(refused.headers.get('retry-after'), '30');
    // Running (a scheduler claimed the first) or about to: either way one job and two queued.
    assert.match(
      refused.body.error,
      /^This server is (already|about to) fetch(ing)? history from that origin, with 2 more of its accounts queued \(one job running and two queued per origin\)$/,
    );
    assert.equal(await row('i4'), undefined);
    // The same at the store, on overlapping transactions (as from four nodes): three queued, one refused.
    const store = new RemoteHistoryStore(s.app.db);
    const accounts = await Promise.all(['i5', 'i6', 'i7', 'i8'].map(async (n) => (await s.app.federation.accounts.byId(id[n]!))!));
    await s.app.db.exec(`DELETE FROM remote_histories WHERE origin = $1`, [new URL(idle.url).host]);
    const outcomes = await Promise.all(accounts.map((a) => store.request(a, 'older')));
    assert.deepEqual(outcomes.map((o) => o.kind).sort(), ['origin_busy', 'queued', 'queued', 'queued']);
  });

  it('two queued and none running: a third actor is accepted (the first queued is the running one), a fourth refused', async () => {
    const host = new URL(pair.url).host;
    // Two jobs queued as a request leaves them, before any scheduler has claimed one (no notification: none wakes).
    for (const n of ['w1', 'w2']) {
      await s.app.db.exec(`INSERT INTO remote_histories (account_id, origin, state, cursor, pages_budget, queued_at) VALUES ($1, $2, 'queued', $3, 2, now())`, [
        id[n],
        host,
        `${pair.url}/users/${n}/outbox`,
      ]);
    }
    const third = await fetchMore('w3');
    assert.deepEqual([third.status, third.body.state], [202, 'queued'], third.text);
    const fourth = await fetchMore('w4');
    assert.equal(fourth.status, 429, fourth.text);
    assert.equal(fourth.headers.get('retry-after'), '30');
  });

  it('an origin in backoff with three queued refuses a fourth until its backoff is over and a job has run', async () => {
    const host = new URL(pair.url).host;
    // Under the origin's lock, as a scheduler claims: a claim already under way either ends before (its row is put
    // back in the queue here) or waits and then finds the origin in backoff.
    await s.app.db.tx(async (q) => {
      await q.query(`SELECT pg_advisory_xact_lock(hashtext('history-origin:' || $1::text))`, [host]);
      await q.query(
        `INSERT INTO history_origins (origin, backoff_until, attempts, reason) VALUES ($1, now() + interval '100 seconds', 1, 'rate_limited')
         ON CONFLICT (origin) DO UPDATE SET backoff_until = EXCLUDED.backoff_until`,
        [host],
      );
      await q.query(`UPDATE remote_histories SET state = 'queued', lease_owner = NULL, lease_until = NULL WHERE origin = $1`, [host]);
    });
    const refused = await fetchMore('w4');
    assert.equal(refused.status, 429, refused.text);
    const wait = Number(refused.headers.get('retry-after'));
    assert.ok(wait > 125 && wait <= 130, `Retry-After: ${wait}`);
    assert.deepEqual(refused.body, {
      error:
        'That origin asked this server to wait before fetching from it again, and 3 of its accounts are queued for then (one job running and two queued per origin)',
    });
  });

  it('refuses local accounts (422), unknown ones (404), app tokens (422) and tokens without read (403)', async () => {
    for (const method of ['GET', 'POST'] as const) {
      const path = (who: string) => `/api/v1/accounts/${who}/remote_history${method === 'POST' ? '/fetch' : ''}`;
      const local = await call(m.token['ann'], method, path(m.id['mod']!));
      assert.equal(local.status, 422, local.text);
      assert.deepEqual(local.body, { error: 'Remote history exists only for remote accounts' });
      for (const unknown of ['999999999999', 'nope']) {
        const r = await call(m.token['ann'], method, path(unknown));
        assert.equal(r.status, 404, r.text);
        assert.deepEqual(r.body, { error: 'Record not found' });
      }
      const app = await appToken(s.url, await registerApp(s.url, { scopes: 'read' }), 'read');
      const byApp = await call(app, method, path(id['pia']!));
      assert.equal(byApp.status, 422, byApp.text);
      assert.ok(typeof byApp.body.error === 'string');
      const writeOnly = await m.tokenFor('ann', ['write']);
      const w = await call(writeOnly, method, path(id['pia']!));
      assert.equal(w.status, 403, w.text);
      const anonymous = await call(undefined, method, path(id['pia']!));
      assert.equal(anonymous.status, 401, anonymous.text);
    }
  });
});
