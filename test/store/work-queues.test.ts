// The work queues' "when is the next round due" against the real PostgreSQL: nothing queued is "nothing due" (null,
// so the actor sleeps until kicked), never 0 (which made an idle server poll the database dozens of times a second);
// a waiting row gives its own due time.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { Database } from '../../src/store/db.js';
import { DeliveryStore } from '../../src/store/deliveries.js';
import { InboxJobStore } from '../../src/store/inbox-jobs.js';
import { PollStore } from '../../src/store/polls.js';
import { Wake } from '../../src/wake.js';
import { freshDatabaseUrl } from '../support/db.js';

/** Close to `expected` ms: the statement ran a little after the row was written. */
function near(actual: number | null, expected: number, what: string): void {
  assert.ok(actual !== null && actual <= expected && actual > expected - 2_000, `${what}: ${actual} ms, expected about ${expected}`);
}

describe('next-due queries of the work queues', () => {
  let db: Database;
  let accountId: string;
  const noUpdates = async () => undefined;
  const notFailing = () => undefined;

  before(async () => {
    db = new Database(await freshDatabaseUrl(), 2, pino({ level: 'silent' }));
    accountId = (await db.one<{ id: string }>(`INSERT INTO accounts (username, domain) VALUES ('queuer', NULL) RETURNING id`))!.id;
  });
  after(() => db.close());

  // A claim's locked rows are a CTE (host-queue.ts claimable): as `id IN (subquery)`, a plan that scans the subquery
  // again per row took more rows each time (SKIP LOCKED passes over those the same UPDATE has just taken).
  it('a claim takes at most its limit, whatever plan PostgreSQL picks for it', async () => {
    const one = new Database(db.connectionString, 1, pino({ level: 'silent' }));
    try {
      // The plan that scans the claimed set again for each row (a nested loop semi join with it on the inner side).
      for (const k of ['hashjoin', 'mergejoin', 'material', 'hashagg', 'sort']) await one.exec(`SET enable_${k} = off`);
      const deliveries = new DeliveryStore(one);
      const inboxes = ['a', 'b', 'c', 'd', 'e', 'f'].map((n) => `https://bounded.example/users/${n}/inbox`);
      await deliveries.enqueue('https://local.example/activities/bounded', accountId, '{}', inboxes, 3_600_000);
      const sizes: number[] = [];
      for (let i = 0; i < 4; i++) sizes.push((await deliveries.claim('bounded.example', 'node', 2, 60_000)).length);
      assert.deepEqual(sizes, [2, 2, 2, 0]);
      const jobs = new InboxJobStore(one);
      for (let i = 0; i < 6; i++) assert.equal(await jobs.enqueue(`https://remote.example/bounded/${i}`, accountId, { type: 'Delete' }), true);
      const jobSizes: number[] = [];
      for (let i = 0; i < 4; i++) jobSizes.push((await jobs.claim('node', 2, 60_000)).length);
      assert.deepEqual(jobSizes, [2, 2, 2, 0]);
      await one.exec("DELETE FROM deliveries WHERE host = 'bounded.example'");
      await one.exec("DELETE FROM inbox_jobs WHERE activity_id LIKE 'https://remote.example/bounded/%'");
    } finally {
      await one.close();
    }
  });

  it('the inbox queue: null when empty, 0 for a job due now, the retry time for a job waiting', async () => {
    const inbox = new InboxJobStore(db);
    assert.equal(await inbox.nextDueInMs(), null, 'no job at all');
    assert.equal(await inbox.enqueue('https://remote.example/a/1', accountId, { type: 'Delete' }), true);
    assert.equal(await inbox.nextDueInMs(), 0, 'a job due now');
    const [job] = await inbox.claim('node', 10, 60_000);
    near(await inbox.nextDueInMs(), 60_000, 'a leased job is due again when its lease ends');
    await inbox.retry(job!.id, 30_000, 'remote down');
    near(await inbox.nextDueInMs(), 30_000, 'a job retried in 30 s');
    await inbox.done(job!.id);
    assert.equal(await inbox.nextDueInMs(), null, 'a processed job is not work');
  });

  it('the delivery queue: null when empty, 0 for a delivery due now, the retry time for one waiting', async () => {
    const deliveries = new DeliveryStore(db);
    assert.equal(await deliveries.nextDueInMs(), null, 'no delivery at all');
    assert.deepEqual(await deliveries.enqueue('https://here.example/a/1', accountId, '{}', ['https://peer.example/inbox'], 3_600_000), ['peer.example']);
    assert.equal(await deliveries.nextDueInMs(), 0, 'a delivery due now');
    const [d] = await deliveries.claim('peer.example', 'node', 10, 60_000);
    await deliveries.retryAt(d!.id, 30_000, 'HTTP 503');
    near(await deliveries.nextDueInMs(), 30_000, 'a delivery retried in 30 s');
    await deliveries.delivered(d!.id);
    assert.equal(await deliveries.nextDueInMs(), null, 'a delivered row is gone');
  });

  it('the polls: null when no poll is open or has an Update pending, else the time of the next', async () => {
    const polls = new PollStore(db, { updateDelayMs: 180_000 }, new Wake());
    assert.equal((await polls.closeDue(10)).nextInMs, null, 'no poll to close');
    assert.equal((await polls.sendDueUpdates(10, { ms: 60_000, owner: 'me' }, noUpdates, notFailing)).nextInMs, null, 'no Update to send');

    const status = (await db.one<{ id: string }>(`INSERT INTO statuses (account_id, content, visibility, local) VALUES ($1, '', 0, true) RETURNING id`, [
      accountId,
    ]))!.id;
    await db.exec(
      `INSERT INTO polls (status_id, account_id, options, expires_at, update_due_at) VALUES ($1, $2, '{a,b}', now() + interval '60 seconds', now() + interval '20 seconds')`,
      [status, accountId],
    );
    const closing = await polls.closeDue(10);
    assert.equal(closing.closed, 0);
    near(closing.nextInMs, 60_000, 'the poll ends in a minute');
    const sending = await polls.sendDueUpdates(10, { ms: 60_000, owner: 'me' }, noUpdates, notFailing);
    assert.equal(sending.sent, 0);
    near(sending.nextInMs, 20_000, 'its Update is due in 20 s');
  });
});
