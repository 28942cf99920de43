// Remote history under traffic from many origins (issue 34), one server with its real scheduler and runner, fake
// origins on loopback. Slow origins hold their jobs while another origin's first page completes at once: running
// jobs are capped by what they cost (sockets, memory), not by the database pool, and a job holds a connection only
// while it reads or commits. An origin's Retry-After is honoured as named (5 s at least, a day at most), not raised
// to a minute, and nothing is asked of the origin before then. The pool is 4, as on a 2-core machine, where the old
// cap (a third of the pool) ran 2 jobs a node.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, FED_ENV, type Json } from '../support/api.js';
import { startHistoryOrigin, type HistoryOrigin } from '../support/history-origin.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

const PUBLIC = 'https://www.w3.org/ns/activitystreams#Public';
/** A slow origin's document is held this long: under one fetch's 10 s limit, longer than the fast origin may take. */
const SLOW_MS = 8_000;

/** Actor `name`'s outbox, with one page of one public post naming a next page; either document held if asked. */
function serveOutbox(o: HistoryOrigin, name: string, opts: { outboxDelayMs?: number; pageDelayMs?: number } = {}): string {
  const actor = o.actor(name);
  const outbox = `${actor}/outbox`;
  o.serve(`/users/${name}/outbox`, {
    delayMs: opts.outboxDelayMs ?? 0,
    json: { '@context': 'https://www.w3.org/ns/activitystreams', id: outbox, type: 'OrderedCollection', totalItems: 2, first: `${outbox}?page=1` },
  });
  o.serve(`/users/${name}/outbox?page=1`, {
    delayMs: opts.pageDelayMs ?? 0,
    json: {
      '@context': 'https://www.w3.org/ns/activitystreams',
      id: `${outbox}?page=1`,
      type: 'OrderedCollectionPage',
      partOf: outbox,
      next: `${outbox}?page=2`,
      orderedItems: [
        {
          id: `${actor}/statuses/1/activity`,
          type: 'Create',
          actor,
          to: [PUBLIC],
          object: { id: `${actor}/statuses/1`, type: 'Note', attributedTo: actor, to: [PUBLIC], content: '<p>one</p>', published: '2024-06-01T00:00:00Z' },
        },
      ],
    },
  });
  return actor;
}

describe('remote history across origins: slow ones do not starve the rest; Retry-After honoured', () => {
  let s: TestServer;
  let m: LocalMembers;
  const origins: HistoryOrigin[] = [];

  const call = (method: string, path: string, body?: unknown) => api(s.url, m.token['ann'], method, path, body);
  const history = async (id: string): Promise<Json> => {
    const r = await call('GET', `/api/v1/accounts/${id}/remote_history`);
    assert.equal(r.status, 200, r.text);
    return r.body;
  };
  const ask = async (id: string): Promise<void> => {
    const r = await call('POST', `/api/v1/accounts/${id}/remote_history/fetch`);
    assert.equal(r.status, 202, r.text);
  };
  const open = async (actorUri: string): Promise<string> => {
    const r = await call('GET', `/api/v2/search?type=accounts&resolve=true&q=${encodeURIComponent(actorUri)}`);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.accounts.length, 1, r.text);
    return r.body.accounts[0].id as string;
  };
  const origin = async (): Promise<HistoryOrigin> => {
    const o = await startHistoryOrigin();
    origins.push(o);
    return o;
  };

  before(async () => {
    s = await startTestServer({ ...FED_ENV, DATABASE_POOL_MAX: '4' });
    m = await createMembers(s, ['ann']);
    await s.app.history.settings.update({ enabled: true });
  });
  after(async () => {
    await s?.stop();
    await Promise.all(origins.map((o) => o.close()));
  });

  it('is sized by what a job costs, not by the pool: 64 jobs a node, 2 of the 4 connections for their reads and commits', () => {
    assert.equal(s.app.config.federation.historyJobsPerNode, 64);
    assert.equal(s.app.config.federation.historyDbConnections, 2);
  });

  it('two slow origins hold their jobs (one at its outbox, one at its page) while a third origin’s first page completes at once', async () => {
    const [slowOutbox, slowPage, fast] = [await origin(), await origin(), await origin()];
    const ids = {
      a: await open(serveOutbox(slowOutbox, 'sam', { outboxDelayMs: SLOW_MS })),
      b: await open(serveOutbox(slowPage, 'sid', { pageDelayMs: SLOW_MS })),
      c: await open(serveOutbox(fast, 'fay')),
    };
    await ask(ids.a);
    await ask(ids.b);
    // Both slow jobs are under way: each origin has a request it is sitting on.
    await eventually(() => {
      assert.equal(slowOutbox.requests('/users/sam/outbox'), 1);
      assert.equal(slowPage.requests('/users/sid/outbox?page=1'), 1);
    });
    // While they wait on their origins they hold no database connection (the pool has none checked out at times).
    await eventually(() => assert.equal(s.app.db.pool.totalCount - s.app.db.pool.idleCount, 0, 'connections held during the slow fetches'), 3_000, 10);
    const t0 = Date.now();
    await ask(ids.c);
    await eventually(async () => assert.equal((await history(ids.c)).state, 'partial'), 5_000, 20);
    const took = Date.now() - t0;
    assert.ok(took < 3_000, `the fast origin's first page took ${took} ms`);
    assert.equal((await history(ids.c)).items_imported, 1);
    // The slow ones were running all along, and still are.
    assert.deepEqual([(await history(ids.a)).state, (await history(ids.b)).state], ['fetching', 'fetching']);
    assert.equal(slowOutbox.maxConcurrent(), 1);
    await eventually(
      async () => {
        for (const id of [ids.a, ids.b]) assert.equal((await history(id)).state, 'partial');
      },
      2 * SLOW_MS + 4_000,
    );
  });

  it('a 503 with Retry-After: 30 backs the origin off 30 s (not a minute); nothing is asked of it before then', async () => {
    const o = await origin();
    const actor = serveOutbox(o, 'bo');
    serveOutbox(o, 'cal');
    let first = true;
    const busy = { status: 503, body: 'busy', contentType: 'text/plain', headers: { 'retry-after': '30' } };
    const normal = {
      json: { '@context': 'https://www.w3.org/ns/activitystreams', id: `${actor}/outbox`, type: 'OrderedCollection', totalItems: 0, orderedItems: [] },
    };
    o.serve('/users/bo/outbox', () => {
      if (!first) return normal;
      first = false;
      return busy;
    });
    const bo = await open(actor);
    const cal = await open(`${o.url}/users/cal`);
    const before = Date.now();
    await ask(bo);
    await eventually(async () => assert.equal((await history(bo)).state, 'backoff'));
    const after = Date.now();
    const h = await history(bo);
    assert.equal(h.reason, 'server_error');
    assert.equal(h.attempts, 1);
    const retryAt = Date.parse(h.retry_at);
    assert.ok(retryAt >= before + 30_000 && retryAt <= after + 30_000, `retry_at ${h.retry_at} is not 30 s after the 503`);
    const origin503 = await s.app.db.one<{ backoff_until: Date }>('SELECT backoff_until FROM history_origins WHERE origin = $1', [o.host]);
    assert.equal(origin503!.backoff_until.getTime(), retryAt, 'the whole origin waits (a 503 is the host saying it is busy)');
    // Another member asks for another actor of that origin: it is queued, every node is woken, and nothing is fetched.
    await ask(cal);
    await s.app.history.scheduler()!.roundAfterKick();
    await s.app.history.scheduler()!.roundAfterKick();
    assert.equal(o.requests('/users/bo/outbox'), 1, 'the origin was asked again before its Retry-After');
    assert.equal(o.requests('/users/cal/outbox'), 0, 'another job of the origin ran during its backoff');
    assert.equal((await history(cal)).state, 'queued');
    // The scheduler sleeps until then, not a minute: its next due time is the origin's.
    const next = await s.app.history.jobs.nextDueInMs();
    assert.ok(next !== null && next > 25_000 && next <= 30_000, `next history work due in ${next} ms`);
  });

  it('Retry-After: 0 waits the 5 s floor, then the job runs by itself at that time', async () => {
    const o = await origin();
    const actor = serveOutbox(o, 'dee');
    const answered: number[] = [];
    let first = true;
    o.serve('/users/dee/outbox', () => {
      if (first) {
        first = false;
        return { status: 429, body: '', headers: { 'retry-after': '0' } };
      }
      answered.push(Date.now());
      return {
        json: { '@context': 'https://www.w3.org/ns/activitystreams', id: `${actor}/outbox`, type: 'OrderedCollection', totalItems: 0, orderedItems: [] },
      };
    });
    const id = await open(actor);
    const before = Date.now();
    await ask(id);
    await eventually(async () => assert.equal((await history(id)).state, 'backoff'));
    const h = await history(id);
    assert.equal(h.reason, 'rate_limited');
    const retryAt = Date.parse(h.retry_at);
    assert.ok(retryAt >= before + 5_000 && retryAt <= Date.now() + 5_000, `retry_at ${h.retry_at}: not 5 s on`);
    await eventually(async () => assert.equal((await history(id)).state, 'complete'), 10_000);
    assert.equal(answered.length, 1);
    assert.ok(answered[0]! >= retryAt - 5, `asked again ${retryAt - answered[0]!} ms before its retry time`);
  });
});
