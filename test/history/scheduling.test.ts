// Remote history jobs: how they are scheduled across nodes sharing one database. The runner is a fake the test
// controls (fetching and importing are tested with the real one): it commits pages through the real ledger, holds
// a job open, or ends it in backoff. Jobs are queued as the request endpoint queues them: a row in `queued` and a
// `history:<origin>` notification on the work channel, which wakes every node.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { pino } from 'pino';
import type { Supervisor } from '../../actors/supervisor.js';
import type { App } from '../../src/app.js';
import { Database } from '../../src/store/db.js';
import { HistoryJobStore, type HistoryJobRunner } from '../../src/store/history-jobs.js';
import type { ClaimedJob, JobLedger, JobOutcome } from '../../src/store/history-types.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

type Script = (job: ClaimedJob, ledger: JobLedger, signal: AbortSignal) => Promise<JobOutcome>;

/** Every node of a test shares one: it sees every run, on whichever node, and counts runs per origin at once. */
class FakeRunner implements HistoryJobRunner {
  readonly started: { job: ClaimedJob; at: number }[] = [];
  readonly mostAtOnce = new Map<string, number>();
  private readonly live = new Map<string, number>();
  private readonly scripts = new Map<string, Script>();

  on(origin: string, script: Script): void {
    this.scripts.set(origin, script);
  }

  runsOf(origin: string): { job: ClaimedJob; at: number }[] {
    return this.started.filter((r) => r.job.origin === origin);
  }

  async run(job: ClaimedJob, ledger: JobLedger, signal: AbortSignal): Promise<JobOutcome> {
    this.started.push({ job, at: Date.now() });
    const n = (this.live.get(job.origin) ?? 0) + 1;
    this.live.set(job.origin, n);
    this.mostAtOnce.set(job.origin, Math.max(n, this.mostAtOnce.get(job.origin) ?? 0));
    try {
      return await (this.scripts.get(job.origin) ?? onePage())(job, ledger, signal);
    } finally {
      this.live.set(job.origin, this.live.get(job.origin)! - 1);
    }
  }
}

/** Commits one page (20 items examined, 5 imported) that leads to `next`, and ends as `partial`. */
function onePage(next = 'https://origin.example/outbox?page=2'): Script {
  return async (job, ledger) =>
    (await ledger.commitPage(job, { nextCursor: next, examined: 20, imported: 5 }, async () => {})) ? { kind: 'partial' } : { kind: 'lease_lost' };
}

/** `p`, or a failure naming what did not happen within `ms`. */
async function within<T>(p: Promise<T>, what: string, ms = 8_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms)));
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}

function gate(): { readonly opened: Promise<void>; open(): void } {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { opened, open };
}

async function remoteAccount(db: Database, name: string, origin: string): Promise<string> {
  return (await db.one<{ id: string }>('INSERT INTO accounts (username, domain) VALUES ($1, $2) RETURNING id', [name, origin]))!.id;
}

/** What RemoteHistoryStore.request does for an initial fetch: the row queued and every node told, on commit. */
async function queue(db: Database, accountId: string, origin: string, budget = 2): Promise<void> {
  await db.tx(async () => {
    await db.exec(
      `INSERT INTO remote_histories (account_id, origin, state, cursor, pages_budget, queued_at) VALUES ($1, $2, 'queued', $3, $4, clock_timestamp())`,
      [accountId, origin, `https://${origin}/users/${accountId}/outbox`, budget],
    );
    await db.exec(`SELECT pg_notify('stoa_work', 'history:' || $1::text)`, [origin]);
  });
}

type HistoryRow = {
  state: string;
  reason: string | null;
  cursor: string | null;
  attempts: number;
  retry_at: Date | null;
  items_examined: number;
  pages_fetched: number;
  pages_budget: number;
  lease_owner: string | null;
};

async function historyOf(db: Database, accountId: string): Promise<HistoryRow> {
  return (await db.one<HistoryRow>(
    `SELECT state, reason, cursor, attempts, retry_at, items_examined, pages_fetched, pages_budget, lease_owner FROM remote_histories WHERE account_id = $1`,
    [accountId],
  ))!;
}

async function running(db: Database, origin: string): Promise<number> {
  return (await db.one<{ n: number }>(`SELECT count(*)::int AS n FROM remote_histories WHERE origin = $1 AND state = 'fetching'`, [origin]))!.n;
}

/** Resolves once the node's scheduler has finished a round that began after this call. */
function nextRound(app: App): Promise<void> {
  return app.history.scheduler()!.roundAfterKick();
}

describe('remote history jobs on two nodes sharing one database', () => {
  const runner = new FakeRunner();
  let n1: TestServer;
  let n2: TestServer;
  let db: Database;

  before(async () => {
    // A small cap, so that a burst beyond it costs a few origins (the default, 64, is sized for slow origins).
    n1 = await startTestServer({ HISTORY_JOBS_PER_NODE: '3' }, undefined, { historyRunner: runner });
    n2 = await startTestServer({ HISTORY_JOBS_PER_NODE: '3' }, n1.databaseUrl, { historyRunner: runner });
    db = n1.app.db;
    await n1.app.history.settings.update({ enabled: true });
    // Both schedulers have seen the switch and sleep: from here on only a wake-up (or a due time) starts a job.
    await Promise.all([nextRound(n1.app), nextRound(n2.app)]);
  });
  after(async () => {
    await n2?.stop();
    await n1?.stop();
  });

  it('runs one job per origin at a time, cluster-wide, however many are queued; other origins run meanwhile', async () => {
    const origin = 'one.example';
    const gates = new Map<string, ReturnType<typeof gate>>();
    runner.on(origin, async (job, ledger, signal) => {
      await gates.get(job.accountId)!.opened;
      return onePage()(job, ledger, signal);
    });
    const ids: string[] = [];
    for (const name of ['ann', 'bob', 'cat']) {
      const id = await remoteAccount(db, name, origin);
      gates.set(id, gate());
      ids.push(id);
    }
    for (const id of ids) await queue(db, id, origin);
    const other = await remoteAccount(db, 'dan', 'two.example');
    await queue(db, other, 'two.example');

    for (let k = 1; k <= 3; k++) {
      await eventually(() => assert.equal(runner.runsOf(origin).length, k, `job ${k} of the origin did not start`));
      // Both nodes look for work while this job runs; neither starts a second one of the origin.
      await Promise.all([nextRound(n1.app), nextRound(n2.app)]);
      assert.equal(runner.runsOf(origin).length, k);
      assert.equal(await running(db, origin), 1);
      gates.get(runner.runsOf(origin)[k - 1]!.job.accountId)!.open();
    }
    await eventually(async () => {
      for (const id of ids) assert.equal((await historyOf(db, id)).state, 'partial');
    });
    assert.equal(runner.mostAtOnce.get(origin), 1);
    assert.deepEqual(
      runner
        .runsOf(origin)
        .map((r) => r.job.accountId)
        .sort(),
      [...ids].sort(),
      'each job ran once',
    );
    await eventually(async () => assert.equal((await historyOf(db, other)).state, 'partial'));
    const done = await historyOf(db, ids[0]!);
    assert.equal(done.items_examined, 20);
    assert.equal(done.pages_fetched, 1);
    assert.equal(done.cursor, 'https://origin.example/outbox?page=2');
    assert.equal(done.lease_owner, null);
  });

  it('a burst of due origins runs at most HISTORY_JOBS_PER_NODE jobs per node; the rest wait unclaimed, then all run', async () => {
    const perNode = n1.app.config.federation.historyJobsPerNode;
    assert.equal(perNode, 3);
    const origins = Array.from({ length: 3 * perNode }, (_, i) => `burst-${i}.example`);
    const opened = gate();
    const ids: string[] = [];
    for (const origin of origins) {
      runner.on(origin, async (job, ledger, signal) => {
        await opened.opened;
        return onePage()(job, ledger, signal);
      });
      ids.push(await remoteAccount(db, 'burst', origin));
    }
    for (const [i, id] of ids.entries()) await queue(db, id, origins[i]!);
    const fetching = async () =>
      await db.rows<{ owner: string; n: number }>(
        `SELECT lease_owner AS owner, count(*)::int AS n FROM remote_histories WHERE origin LIKE 'burst-%' AND state = 'fetching' GROUP BY 1`,
      );
    // Both nodes fill their slots; nobody claims more, however many rounds they run.
    await eventually(async () =>
      assert.equal(
        (await fetching()).reduce((sum, r) => sum + r.n, 0),
        2 * perNode,
      ),
    );
    await Promise.all([nextRound(n1.app), nextRound(n2.app)]);
    const held = await fetching();
    assert.equal(held.length, 2, 'both nodes run jobs');
    for (const r of held) assert.equal(r.n, perNode, `node ${r.owner} runs ${r.n} jobs`);
    const queued = await db.one<{ n: number }>(`SELECT count(*)::int AS n FROM remote_histories WHERE origin LIKE 'burst-%' AND state = 'queued'`);
    assert.equal(queued!.n, origins.length - 2 * perNode, 'the others wait in the database, unclaimed');
    opened.open();
    await eventually(async () => {
      for (const id of ids) assert.equal((await historyOf(db, id)).state, 'partial');
    });
    // Both schedulers see nothing left and sleep again: the next tests queue work no node may take unbidden.
    await Promise.all([nextRound(n1.app), nextRound(n2.app)]);
  });

  it('a job whose lease ran out is taken over by the other node; the first can no longer commit', async () => {
    const origin = 'stuck.example';
    const firstHeld = gate();
    const firstMayCommit = gate();
    const secondMayCommit = gate();
    let lateCommit: boolean | undefined;
    runner.on(origin, async (job, ledger, signal) => {
      if (runner.runsOf(origin).length === 1) {
        firstHeld.open();
        await firstMayCommit.opened;
        lateCommit = await ledger.commitPage(job, { nextCursor: 'https://stuck.example/late', examined: 20, imported: 20 }, async () => {});
        return { kind: 'lease_lost' };
      }
      await secondMayCommit.opened;
      return onePage('https://stuck.example/taken-over')(job, ledger, signal);
    });
    const id = await remoteAccount(db, 'eve', origin);
    await queue(db, id, origin);
    await within(firstHeld.opened, 'the first run');
    const first = runner.runsOf(origin)[0]!.job;
    const [holder, other] = first.owner === n1.app.authEvents.node ? [n1, n2] : [n2, n1];
    assert.equal(first.owner, holder.app.authEvents.node);
    // The lease runs out (its node stalled past it, as a paused or partitioned process would).
    await db.exec(`UPDATE remote_histories SET lease_until = now() - interval '1 second' WHERE account_id = $1`, [id]);
    await db.exec(`SELECT pg_notify('stoa_work', 'history:' || $1::text)`, [origin]);
    await eventually(() => assert.equal(runner.runsOf(origin).length, 2, 'the job was not taken over'));
    const second = runner.runsOf(origin)[1]!.job;
    assert.ok([other.app.authEvents.node, holder.app.authEvents.node].includes(second.owner));
    // The stalled node wakes up while the other holds the job: its page is refused.
    firstMayCommit.open();
    await eventually(() => assert.equal(lateCommit, false, 'the stalled node committed after losing its lease'));
    secondMayCommit.open();
    await eventually(async () => assert.equal((await historyOf(db, id)).state, 'partial'));
    const row = await historyOf(db, id);
    assert.equal(row.cursor, 'https://stuck.example/taken-over');
    assert.equal(row.items_examined, 20);
    assert.equal(row.state, 'partial');
  });

  it('a node dying mid-page loses nothing committed: another node resumes from the committed cursor and imports nothing twice', async () => {
    const origin = 'crash.example';
    await db.exec('CREATE TABLE imported (uri text PRIMARY KEY, page int NOT NULL)');
    // Imports go through the transaction of the node that runs the job, as the real importer's stores do.
    const importPage = (page: number, owner: string) => async () => {
      const nodeDb = owner === n1.app.authEvents.node ? n1.app.db : n2.app.db;
      await nodeDb.exec('INSERT INTO imported (uri, page) SELECT $1 || i, $2 FROM generate_series(1, 5) i', [`https://crash.example/notes/${page}/`, page]);
    };
    // The node that dies: the same store on a connection pool of its own, as another process has it.
    const doomedUrl = new URL(n1.databaseUrl);
    doomedUrl.searchParams.set('application_name', 'doomed-node');
    const doomedDb = new Database(doomedUrl.toString(), 2, pino({ level: 'silent' }));
    // Its session is killed while checked out: the client's error is the crash this test makes, not the test's.
    doomedDb.pool.on('connect', (client) => client.on('error', () => undefined));
    const doomed = new HistoryJobStore(doomedDb, 500);
    const doomedImport = (page: number) => async () => {
      await doomedDb.exec('INSERT INTO imported (uri, page) SELECT $1 || i, $2 FROM generate_series(1, 5) i', [`https://crash.example/notes/${page}/`, page]);
    };
    try {
      const id = await remoteAccount(db, 'fay', origin);
      // The doomed node claims the job first, whatever the live schedulers' timers do: the job is queued under the
      // origin's lock, and the lock is let go only once the doomed node waits for it (waiters get it in turn).
      const holder = new pg.Client({ connectionString: n1.databaseUrl });
      await holder.connect();
      let claiming: Promise<ClaimedJob | null>;
      try {
        await holder.query('BEGIN');
        await holder.query(`SELECT pg_advisory_xact_lock(hashtext('history-origin:' || $1::text))`, [origin]);
        await holder.query(
          `INSERT INTO remote_histories (account_id, origin, state, cursor, pages_budget, queued_at) VALUES ($1, $2, 'queued', 'https://crash.example/outbox', 2, now())`,
          [id, origin],
        );
        claiming = doomed.claim(origin, 'doomed-node', 500);
        await eventually(async () => {
          // Inside a transaction pg_stat_activity is one snapshot unless it is cleared.
          await holder.query('SELECT pg_stat_clear_snapshot()');
          const { rows } = await holder.query<{ n: number }>(
            "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'doomed-node' AND wait_event = 'advisory'",
          );
          assert.equal(rows[0]!.n, 1, 'the doomed node waits for the origin');
        });
        await holder.query('COMMIT');
      } finally {
        await holder.end();
      }
      const job = (await claiming)!;
      assert.ok(job, `the doomed node claims the job: ${JSON.stringify(await historyOf(db, id))}`);
      assert.ok(await doomed.commitPage(job, { nextCursor: 'https://crash.example/outbox?page=2', examined: 20, imported: 5 }, doomedImport(1)));
      // Page 2: imported inside the page's transaction, then the node's session dies before it commits.
      const dying = doomed.commitPage(job, { nextCursor: 'https://crash.example/outbox?page=3', examined: 20, imported: 5 }, async () => {
        await doomedImport(2)();
        const { pid } = (await doomedDb.one<{ pid: number }>('SELECT pg_backend_pid() AS pid'))!;
        await db.exec('SELECT pg_terminate_backend($1)', [pid]);
        await doomedDb.exec('SELECT 1');
      });
      await assert.rejects(dying);

      runner.on(origin, async (j, ledger) => {
        const ok = await ledger.commitPage(j, { nextCursor: 'https://crash.example/outbox?page=3', examined: 20, imported: 5 }, importPage(2, j.owner));
        return ok ? { kind: 'partial' } : { kind: 'lease_lost' };
      });
      // One wake-up: the nodes see the lease and take the job over when it runs out, by their own timers.
      await db.exec(`SELECT pg_notify('stoa_work', 'history:' || $1::text)`, [origin]);
      await eventually(() => assert.equal(runner.runsOf(origin).length, 1, 'no node took the job over'));
      const resumed = runner.runsOf(origin)[0]!.job;
      assert.equal(resumed.cursor, 'https://crash.example/outbox?page=2', 'resumed from the committed page');
      assert.equal(resumed.pagesBudget, 1, 'with what was left of its budget');
      await eventually(async () => assert.equal((await historyOf(db, id)).state, 'partial'));
      const pages = await db.rows<{ page: number; n: number }>('SELECT page, count(*)::int AS n FROM imported GROUP BY page ORDER BY page');
      assert.deepEqual(pages, [
        { page: 1, n: 5 },
        { page: 2, n: 5 },
      ]);
      const row = await historyOf(db, id);
      assert.equal(row.items_examined, 40);
      assert.equal(row.pages_fetched, 2);
      assert.equal(row.cursor, 'https://crash.example/outbox?page=3');
    } finally {
      await doomedDb.close().catch(() => undefined);
    }
  });

  it('a job in backoff runs again by itself at its retry time, with no request', async () => {
    const origin = 'slow.example';
    let retryAt = new Date(0);
    const answered = gate();
    runner.on(origin, async (job, ledger, signal) => {
      if (runner.runsOf(origin).length === 1) {
        await answered.opened;
        retryAt = new Date(Date.now() + 1_500);
        return { kind: 'backoff', reason: 'rate_limited', retryAt, originWide: false };
      }
      return onePage()(job, ledger, signal);
    });
    const id = await remoteAccount(db, 'gus', origin);
    await queue(db, id, origin);
    // Both nodes look while the job runs (nothing else due): they sleep long past the retry time the run then sets.
    await eventually(() => assert.equal(runner.runsOf(origin).length, 1));
    await Promise.all([nextRound(n1.app), nextRound(n2.app)]);
    answered.open();
    await eventually(async () => {
      const row = await historyOf(db, id);
      assert.equal(row.state, 'backoff');
      assert.equal(row.reason, 'rate_limited');
      assert.equal(row.attempts, 1);
      assert.equal(row.retry_at?.getTime(), retryAt.getTime());
    });
    await eventually(() => assert.equal(runner.runsOf(origin).length, 2, 'the job did not run again at its retry time'), 6_000);
    assert.ok(runner.runsOf(origin)[1]!.at >= retryAt.getTime() - 5, 'not before its retry time');
    assert.equal(runner.runsOf(origin)[1]!.job.attempts, 1);
    await eventually(async () => {
      const row = await historyOf(db, id);
      assert.equal(row.state, 'partial');
      assert.equal(row.attempts, 0, 'a success resets the attempts');
      assert.equal(row.retry_at, null);
    });
  });

  it("an origin's backoff holds its other jobs until it ends", async () => {
    const origin = 'busy.example';
    let retryAt = new Date(0);
    const first = await remoteAccount(db, 'hal', origin);
    const second = await remoteAccount(db, 'ida', origin);
    runner.on(origin, async (job, ledger, signal) => {
      if (job.accountId === first && runner.runsOf(origin).length === 1) {
        retryAt = new Date(Date.now() + 1_500);
        return { kind: 'backoff', reason: 'rate_limited', retryAt, originWide: true };
      }
      return onePage()(job, ledger, signal);
    });
    await queue(db, first, origin);
    await eventually(async () => assert.equal((await historyOf(db, first)).state, 'backoff'));
    await queue(db, second, origin);
    await Promise.all([nextRound(n1.app), nextRound(n2.app)]);
    assert.equal(runner.runsOf(origin).length, 1, 'the other job ran during the origin backoff');
    const held = await db.one<{ backoff_until: Date }>('SELECT backoff_until FROM history_origins WHERE origin = $1', [origin]);
    assert.equal(held?.backoff_until.getTime(), retryAt.getTime());
    await eventually(async () => {
      assert.equal((await historyOf(db, first)).state, 'partial');
      assert.equal((await historyOf(db, second)).state, 'partial');
    }, 6_000);
    for (const r of runner.runsOf(origin).slice(1)) assert.ok(r.at >= retryAt.getTime() - 5, 'a job of the origin ran before its backoff ended');
  });
  it('a node stopping mid-job gives the job back, and the other node goes on with it at once from its last page', async () => {
    const origin = 'stopping.example';
    const committed = gate();
    runner.on(origin, async (job, ledger, signal) => {
      if (runner.runsOf(origin).length > 1) return onePage('https://stopping.example/outbox?page=3')(job, ledger, signal);
      await ledger.commitPage(job, { nextCursor: 'https://stopping.example/outbox?page=2', examined: 20, imported: 5 }, async () => {});
      committed.open();
      // The run stops when told (the server shutting down), with its first page committed.
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      return { kind: 'partial' };
    });
    const id = await remoteAccount(db, 'quin', origin);
    await queue(db, id, origin);
    await within(committed.opened, 'the first page');
    const first = runner.runsOf(origin)[0]!.job;
    const [holder, other] = first.owner === n1.app.authEvents.node ? [n1, n2] : [n2, n1];
    db = other.app.db;
    await holder.stop();
    // Far below the lease (a minute): only the job given back, and the notification of it, explain this.
    await eventually(() => assert.equal(runner.runsOf(origin).length, 2, 'the other node did not take the job'), 3_000);
    const second = runner.runsOf(origin)[1]!.job;
    assert.equal(second.owner, other.app.authEvents.node);
    assert.equal(second.cursor, 'https://stopping.example/outbox?page=2');
    assert.equal(second.pagesBudget, 1);
    await eventually(async () => assert.equal((await historyOf(db, id)).state, 'partial'));
    const row = await historyOf(db, id);
    assert.equal(row.pages_fetched, 2);
    assert.equal(row.cursor, 'https://stopping.example/outbox?page=3');
  });
});

describe('remote history jobs across a restart and the feature switch', () => {
  const runner = new FakeRunner();
  let s: TestServer;
  let db: Database;

  before(async () => {
    s = await startTestServer({}, undefined, { historyRunner: runner });
    db = s.app.db;
  });
  after(async () => {
    await s?.stop();
  });

  it('switched off, queued jobs stay queued; switched on, they run', async () => {
    const origin = 'off.example';
    const id = await remoteAccount(db, 'jay', origin);
    await queue(db, id, origin);
    await nextRound(s.app);
    const historySupervisor = s.app.supervisor.which('history') as Supervisor;
    assert.ok(!historySupervisor.childIds().includes(`origin:${origin}`), 'an origin actor was started while the feature is off');
    assert.equal(runner.runsOf(origin).length, 0);
    assert.equal((await historyOf(db, id)).state, 'queued');
    await s.app.history.settings.update({ enabled: true });
    s.app.history.scheduler()!.kick(); // what the admin settings endpoint's wake does
    await eventually(async () => assert.equal((await historyOf(db, id)).state, 'partial'));
    assert.equal(runner.runsOf(origin).length, 1);
  });

  it('switched off while a job runs, that job finishes and the next of its origin waits', async () => {
    const origin = 'switch.example';
    const held = gate();
    runner.on(origin, async (job, ledger, signal) => {
      await held.opened;
      return onePage()(job, ledger, signal);
    });
    const a = await remoteAccount(db, 'kim', origin);
    const b = await remoteAccount(db, 'lou', origin);
    await queue(db, a, origin);
    await queue(db, b, origin);
    await eventually(() => assert.equal(runner.runsOf(origin).length, 1));
    await s.app.history.settings.update({ enabled: false });
    held.open();
    await eventually(async () => assert.equal((await historyOf(db, a)).state, 'partial'));
    await nextRound(s.app);
    assert.equal((await historyOf(db, b)).state, 'queued');
    assert.equal(runner.runsOf(origin).length, 1);
    await s.app.history.settings.update({ enabled: true });
    s.app.history.scheduler()!.kick();
    await eventually(async () => assert.equal((await historyOf(db, b)).state, 'partial'));
  });

  it('claims racing from two nodes: exactly one wins per origin, enforced by the database', async () => {
    await s.app.history.settings.update({ enabled: false }); // the scheduler stays out of the race
    const origin = 'race.example';
    for (const name of ['mo', 'ned', 'oz']) {
      const id = await remoteAccount(db, name, origin);
      await db.exec(
        `INSERT INTO remote_histories (account_id, origin, state, cursor, pages_budget, queued_at) VALUES ($1, $2, 'queued', 'https://race.example/outbox', 2, clock_timestamp())`,
        [id, origin],
      );
    }
    const otherDb = new Database(s.databaseUrl, 4, pino({ level: 'silent' }));
    try {
      const stores = [s.app.history.jobs, new HistoryJobStore(otherDb)];
      const claims = await Promise.all(Array.from({ length: 8 }, (_, i) => stores[i % 2]!.claim(origin, `node-${i % 2}`, 60_000)));
      assert.equal(claims.filter((c) => c !== null).length, 1);
      assert.equal(await running(db, origin), 1);
    } finally {
      await otherDb.close();
    }
  });

  it('a backoff survives a restart and the job runs at its retry time on the restarted node', async () => {
    await s.app.history.settings.update({ enabled: true });
    const origin = 'later.example';
    const id = await remoteAccount(db, 'pat', origin);
    let retryAt = new Date(0);
    runner.on(origin, async () => {
      retryAt = new Date(Date.now() + 2_000);
      return { kind: 'backoff', reason: 'server_error', retryAt, originWide: true };
    });
    await queue(db, id, origin);
    await eventually(async () => assert.equal((await historyOf(db, id)).state, 'backoff'));
    await s.stop();
    const restarted = new FakeRunner();
    s = await startTestServer({}, s.databaseUrl, { historyRunner: restarted });
    db = s.app.db;
    const row = await historyOf(db, id);
    assert.equal(row.state, 'backoff');
    assert.equal(row.retry_at?.getTime(), retryAt.getTime());
    await eventually(async () => assert.equal((await historyOf(db, id)).state, 'partial'), 8_000);
    assert.equal(restarted.runsOf(origin).length, 1);
    assert.ok(restarted.runsOf(origin)[0]!.at >= retryAt.getTime() - 5, 'ran before its retry time');
  });
});
