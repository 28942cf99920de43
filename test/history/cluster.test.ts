// Remote history on a cluster (issue 16): Stoa as separate processes on one database, each with its own history
// scheduler, asked through the API on either node. One fake origin with slow pages sees at most one history request
// at a time from the whole cluster, and an ask beyond its 1 running + 2 queued jobs is refused on every node; asks
// made together on an idle origin, or with two queued and none running, are taken as those limits say (issue 34).
// Then the node holding a job's lease is killed with SIGKILL mid-page; a node started afterwards takes the job over
// at once, and every post is stored exactly once.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { api, type Json } from '../support/api.js';
import { freshDatabaseUrl } from '../support/db.js';
import { startHistoryOrigin, type HistoryOrigin, type OriginAnswer } from '../support/history-origin.js';
import { registerApp, signIn, userToken } from '../support/oauth.js';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';
import { freePort } from '../support/server.js';
import { eventually } from '../support/wait.js';

const BASIC = fileURLToPath(new URL('../../../test/fixtures/outboxes/basic.json', import.meta.url));

/** The `basic` fixture for actor `name` (as HistoryOrigin.load serves it), each document answered as `answer` says. */
function serveBasic(o: HistoryOrigin, name: string, answer: (path: string) => Omit<OriginAnswer, 'json'>): void {
  o.actor(name);
  const docs = JSON.parse(readFileSync(BASIC, 'utf8').replaceAll('{name}', name)) as Record<string, unknown>;
  for (const [p, json] of Object.entries(docs)) o.serve(p, () => ({ json, ...answer(p) }));
}

describe('remote history on two processes sharing one database', () => {
  let databaseUrl: string;
  let db: pg.Pool;
  let dataDir: string;
  let token: string;
  const nodes: ServerProcess[] = [];
  const origins: HistoryOrigin[] = [];

  const startNode = async (): Promise<ServerProcess> => {
    const node = await startServerProcess({
      databaseUrl,
      port: await freePort(),
      host: '127.0.0.1',
      env: { STOA_DATA_DIR: dataDir, FEDERATION_ALLOW_PRIVATE: 'loopback' },
    });
    nodes.push(node);
    return node;
  };
  const call = (node: ServerProcess, method: string, p: string, body?: unknown) => api(node.url, token, method, p, body);
  /** The remote account of an actor, as a member finds it (search by its URL, resolved). */
  const open = async (node: ServerProcess, actorUri: string): Promise<string> => {
    const r = await call(node, 'GET', `/api/v2/search?type=accounts&resolve=true&q=${encodeURIComponent(actorUri)}`);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.accounts.length, 1, r.text);
    return r.body.accounts[0].id as string;
  };
  const history = async (node: ServerProcess, id: string): Promise<Json> => {
    const r = await call(node, 'GET', `/api/v1/accounts/${id}/remote_history`);
    assert.equal(r.status, 200, r.text);
    return r.body;
  };
  const ask = (node: ServerProcess, id: string) => call(node, 'POST', `/api/v1/accounts/${id}/remote_history/fetch`);
  const alive = (n: ServerProcess) => n.child.exitCode === null && n.child.signalCode === null;

  before(async () => {
    databaseUrl = await freshDatabaseUrl();
    db = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'stoa-history-'));
    const [first] = await Promise.all([startNode(), startNode()]);
    const admin = nodes.find((n) => n.password)!;
    assert.ok(admin, 'one node created the first admin');
    const jar = await signIn(admin.url, 'admin', admin.password!);
    const scopes = 'read write follow admin:read admin:write';
    token = await userToken(admin.url, jar, await registerApp(admin.url, { scopes }), scopes);
    const on = await call(first!, 'PUT', '/api/v1/admin/remote_history', { enabled: true });
    assert.equal(on.status, 200, on.text);
  });
  after(async () => {
    for (const n of nodes) if (alive(n)) n.child.kill('SIGKILL');
    await Promise.all(nodes.map((n) => n.exited));
    await Promise.all(origins.map((o) => o.close()));
    await db?.end();
    if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('one history job at a time per origin across both nodes; an ask beyond 1 running and 2 queued is refused on either', async () => {
    const [a, b] = nodes as [ServerProcess, ServerProcess];
    const origin = await startHistoryOrigin();
    origins.push(origin);
    // The first job's documents are slower, so that it still runs while the others are asked for.
    for (const name of ['ada', 'bea', 'cy', 'dot']) serveBasic(origin, name, () => ({ delayMs: name === 'ada' ? 1_500 : 400 }));
    const id: Record<string, string> = {};
    for (const name of ['ada', 'bea', 'cy', 'dot']) id[name] = await open(name === 'bea' ? b : a, `${origin.url}/users/${name}`);
    // Resolving an actor asks for its follower count in the background: done before any history request, so that
    // the origin's peak counts history requests only.
    await eventually(() => {
      for (const name of Object.keys(id)) assert.equal(origin.requests(`/users/${name}/followers`), 1, name);
    });
    const resolved = origin.requests();

    assert.equal((await ask(a, id['ada']!)).status, 202);
    await eventually(async () => assert.equal((await history(b, id['ada']!)).state, 'fetching'));
    const bea = await ask(b, id['bea']!);
    assert.deepEqual([bea.status, bea.body.state], [202, 'queued'], bea.text);
    const cy = await ask(a, id['cy']!);
    assert.deepEqual([cy.status, cy.body.state], [202, 'queued'], cy.text);
    // 1 running, 2 queued: a fourth actor of that origin waits, on either node, and nothing is queued for it.
    assert.equal((await history(a, id['ada']!)).state, 'fetching', 'the first job ended before the fourth ask: too slow a machine');
    for (const node of [a, b]) {
      const refused = await ask(node, id['dot']!);
      assert.equal(refused.status, 429, refused.text);
      assert.ok(Number(refused.headers.get('retry-after')) > 0, `Retry-After: ${refused.headers.get('retry-after')}`);
      assert.equal(typeof refused.body.error, 'string');
    }
    assert.equal((await history(b, id['dot']!)).state, 'idle');

    await eventually(async () => {
      for (const name of ['ada', 'bea', 'cy']) {
        const h = await history(name === 'cy' ? b : a, id[name]!);
        assert.ok(['partial', 'complete'].includes(h.state), `${name}: ${h.state}`);
        assert.equal(h.items_imported, 3, name);
      }
    }, 15_000);
    assert.equal(origin.maxConcurrent(), 1, 'two history requests to one origin at once');
    assert.equal(origin.requests() - resolved, 6, 'each job read the outbox and its first page, once');
    assert.equal(origin.requests('/users/dot/outbox'), 0);
    assert.equal((await history(a, id['dot']!)).state, 'idle');
  });

  it('the origin limits count cluster-wide: three asks at once on an idle origin across both nodes are all queued; two queued and none running take a third', async () => {
    const [a, b] = nodes as [ServerProcess, ServerProcess];
    const idle = await startHistoryOrigin();
    const waiting = await startHistoryOrigin();
    origins.push(idle, waiting);
    // Slow documents, so that the jobs still run and wait while the asks are made.
    for (const name of ['eli', 'fay', 'gus', 'hal']) serveBasic(idle, name, () => ({ delayMs: 500 }));
    for (const name of ['ian', 'jo', 'kit', 'lou']) serveBasic(waiting, name, () => ({ delayMs: 500 }));
    const id: Record<string, string> = {};
    for (const name of ['eli', 'fay', 'gus', 'hal']) id[name] = await open(a, `${idle.url}/users/${name}`);
    for (const name of ['ian', 'jo', 'kit', 'lou']) id[name] = await open(b, `${waiting.url}/users/${name}`);

    // Three members on two nodes ask in the same instant: the first counts as the origin's running job at once.
    const asked = await Promise.all([ask(a, id['eli']!), ask(b, id['fay']!), ask(a, id['gus']!)]);
    assert.deepEqual(
      asked.map((r) => r.status),
      [202, 202, 202],
      asked.map((r) => r.text).join('\n'),
    );
    for (const node of [a, b]) {
      const refused = await ask(node, id['hal']!);
      assert.equal(refused.status, 429, refused.text);
      assert.equal(refused.headers.get('retry-after'), '30');
      assert.match(refused.body.error, /with 2 more of its accounts queued \(one job running and two queued per origin\)$/);
    }

    // Two jobs queued (as a request leaves them, before any node claimed one) and none running: a third is taken on
    // the other node, a fourth refused on both.
    for (const name of ['ian', 'jo']) {
      await db.query(`INSERT INTO remote_histories (account_id, origin, state, cursor, pages_budget, queued_at) VALUES ($1, $2, 'queued', $3, 2, now())`, [
        id[name],
        waiting.host,
        `${waiting.url}/users/${name}/outbox`,
      ]);
    }
    const kit = await ask(a, id['kit']!);
    assert.deepEqual([kit.status, kit.body.state], [202, 'queued'], kit.text);
    for (const node of [a, b]) assert.equal((await ask(node, id['lou']!)).status, 429);
    assert.equal((await history(b, id['lou']!)).state, 'idle');
    // Every job taken runs.
    await eventually(async () => {
      for (const name of ['eli', 'fay', 'gus', 'ian', 'jo', 'kit']) assert.equal((await history(a, id[name]!)).state, 'partial', name);
    }, 20_000);
  });

  it('kill -9 of the node holding a job mid-page: a node started afterwards takes it over, and every post is stored once', async () => {
    // Only one node runs, so that it is the one that claims the job.
    const [a, b] = nodes as [ServerProcess, ServerProcess];
    b.child.kill('SIGTERM');
    assert.equal(await b.exited, 0, `the node stops cleanly:\n${b.output()}`);
    const origin = await startHistoryOrigin();
    origins.push(origin);
    const page1 = '/users/kim/outbox?page=1';
    // Page 1 is held open the first time (10 s, past the kill); read again, it answers at once.
    serveBasic(origin, 'kim', (p) => ({ delayMs: p === page1 && origin.requests(page1) === 1 ? 10_000 : 0 }));
    const id = await open(a, `${origin.url}/users/kim`);

    assert.equal((await ask(a, id)).status, 202);
    await eventually(() => assert.equal(origin.requests(page1), 1, 'page 1 was not asked for'));
    const held = await db.query<{ state: string; lease_owner: string; leased: boolean; cursor: string; pages_fetched: number }>(
      `SELECT state, lease_owner, lease_until > now() + interval '30 seconds' AS leased, cursor, pages_fetched FROM remote_histories WHERE account_id = $1`,
      [id],
    );
    assert.equal(held.rows[0]?.state, 'fetching');
    assert.equal(held.rows[0]?.leased, true, 'the job is leased');
    assert.equal(held.rows[0]?.cursor, `${origin.url}${page1}`, 'the outbox document is committed, page 1 is not');
    a.child.kill('SIGKILL');
    await a.exited;
    const after = await db.query<{ state: string; lease_owner: string }>('SELECT state, lease_owner FROM remote_histories WHERE account_id = $1', [id]);
    assert.deepEqual(after.rows[0], { state: 'fetching', lease_owner: held.rows[0]!.lease_owner }, 'the dead node still holds the lease');

    const started = Date.now();
    const c = await startNode();
    await eventually(async () => assert.equal((await history(c, id)).state, 'partial'), 15_000);
    assert.ok(Date.now() - started < 30_000, 'the dead node’s lease was given back, not waited out');
    assert.equal(origin.requests(page1), 2, 'page 1 was read again');
    assert.equal(origin.requests('/users/kim/outbox'), 1, 'the walk went on from its committed cursor');
    const more = await ask(c, id);
    assert.equal(more.status, 202, more.text);
    await eventually(async () => assert.equal((await history(c, id)).state, 'complete'), 15_000);

    const stored = await db.query<{ uri: string; n: number }>('SELECT uri, count(*)::int AS n FROM statuses WHERE account_id = $1 GROUP BY uri ORDER BY uri', [
      id,
    ]);
    assert.deepEqual(
      stored.rows,
      [1, 2, 3, 4, 5].map((n) => ({ uri: `${origin.url}/users/kim/statuses/${n}`, n: 1 })),
      'every post stored exactly once',
    );
    const done = await history(c, id);
    assert.equal(done.items_imported, stored.rows.length);
    assert.equal(done.items_examined, 5);
    const listed = await call(c, 'GET', `/api/v1/accounts/${id}/statuses?limit=40`);
    assert.equal(listed.body.length, 5, listed.text);
  });
});
