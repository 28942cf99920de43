// Nodes sharing one database: work another node queues (an inbox job, a delivery) is taken up by this node at once,
// although this node's actors sleep while nothing is queued. The other node is stood in for by the same stores on
// a connection pool of their own, as another process has them: queueing notifies every node (LISTEN/NOTIFY), and
// this node's actor wakes. Each is done three times in a row, so the later rounds find the actors asleep.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { Database } from '../../src/store/db.js';
import { DeliveryStore } from '../../src/store/deliveries.js';
import { InboxJobStore } from '../../src/store/inbox-jobs.js';
import { FED_ENV } from '../support/api.js';
import { startRecordingInbox, type RecordingInbox } from '../support/recording-inbox.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

/** Far below the actors' safety round (a minute): only a wake-up explains work done this soon. */
const PROMPTLY_MS = 3_000;

describe('work queued by another node on the same database', () => {
  let s: TestServer;
  let other: Database;
  let peer: RecordingInbox;
  let localId: string;
  let remoteId: string;

  before(async () => {
    s = await startTestServer(FED_ENV);
    other = new Database(s.databaseUrl, 2, pino({ level: 'silent' }));
    peer = await startRecordingInbox({ actors: ['ann'] });
    localId = (await other.one<{ id: string }>(`INSERT INTO accounts (username, domain) VALUES ('sender', NULL) RETURNING id`))!.id;
    remoteId = (await other.one<{ id: string }>(`INSERT INTO accounts (username, domain) VALUES ('far', 'far.example') RETURNING id`))!.id;
  });
  after(async () => {
    await other?.close();
    await peer?.close();
    await s?.stop();
  });

  it('a delivery queued elsewhere is sent by this node promptly', async () => {
    const deliveries = new DeliveryStore(other);
    for (let i = 1; i <= 3; i++) {
      const activity = `https://elsewhere.example/activities/${i}`;
      const body = JSON.stringify({ id: activity, type: 'Delete', actor: 'https://elsewhere.example/users/sender', object: `${activity}/object` });
      await deliveries.enqueue(activity, localId, body, [`${peer.url}${peer.inboxPathOf('ann')}`], 3_600_000);
      await eventually(() => {
        assert.ok(
          peer.delivered().some((p) => p.body === body),
          `delivery ${i} not received`,
        );
      }, PROMPTLY_MS);
    }
  });

  it('work queued while this node was not listening is taken up once it listens again', async () => {
    const deliveries = new DeliveryStore(other);
    const listening = `stoa-auth ${s.app.authEvents.node}`;
    const cut = await other.exec('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [listening]);
    assert.equal(cut, 1, 'the listening connection is cut');
    // Queued at once, before the listener's first reconnection attempt (100 ms later at the earliest).
    const activity = 'https://elsewhere.example/activities/missed';
    const body = JSON.stringify({ id: activity, type: 'Delete', actor: 'https://elsewhere.example/users/sender', object: `${activity}/object` });
    await deliveries.enqueue(activity, localId, body, [`${peer.url}${peer.inboxPathOf('ann')}`], 3_600_000);
    await eventually(() => {
      assert.ok(
        peer.delivered().some((p) => p.body === body),
        'the delivery queued during the cut is not received',
      );
    }, PROMPTLY_MS);
  });

  it('an inbox job queued elsewhere is processed by this node promptly', async () => {
    const inbox = new InboxJobStore(other);
    for (let i = 1; i <= 3; i++) {
      const activity = `https://far.example/activities/${i}`;
      const job = { id: activity, type: 'Delete', actor: 'https://far.example/users/far', object: `https://far.example/notes/${i}` };
      assert.equal(await inbox.enqueue(activity, remoteId, job), true);
      await eventually(async () => {
        const r = await s.app.db.one<{ done: boolean }>('SELECT processed_at IS NOT NULL AS done FROM inbox_jobs WHERE activity_id = $1', [activity]);
        assert.ok(r?.done, `inbox job ${i} not processed`);
      }, PROMPTLY_MS);
    }
  });
});
