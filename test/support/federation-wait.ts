// Waiting for the durable evidence that federation work is done, so that a test asserting that something did NOT
// happen (nothing sent, no second notification) asserts it once the thing could have happened, not after a guess of
// how long that takes. Each wait reads the server's own queues (deliveries, inbox_jobs, polls).
import assert from 'node:assert/strict';
import type { TestServer } from './server.js';
import { eventually } from './wait.js';

const count = async (s: TestServer, sql: string, params: unknown[] = []): Promise<number> =>
  Number((await s.app.db.pool.query<{ n: string }>(sql, params)).rows[0]!.n);

/**
 * Waits until `server` holds no delivery for `host`: whatever it had queued for that host by then was answered
 * (a delivered row is deleted once the host answers 2xx) or given up. A host that keeps failing times this out.
 */
export async function deliveriesDone(server: TestServer, host: string, timeoutMs = 8_000): Promise<void> {
  await eventually(async () => {
    assert.equal(await count(server, 'SELECT count(*) AS n FROM deliveries WHERE host = $1', [host.toLowerCase()]), 0, `deliveries to ${host} still queued`);
  }, timeoutMs);
}

/** Waits until `server` has processed every activity its inbox accepted (processed_at set, handled or failed for good). */
export async function inboxDone(server: TestServer, timeoutMs = 8_000): Promise<void> {
  await eventually(async () => {
    assert.equal(await count(server, 'SELECT count(*) AS n FROM inbox_jobs WHERE processed_at IS NULL'), 0, 'inbox jobs still unprocessed');
  }, timeoutMs);
}

/**
 * Waits until `server`'s inbox has accepted at least one activity of `type` whose object is `objectId` (embedded or
 * by id) and has processed all of them; fails if one was processed with an error.
 */
export async function inboxJobsProcessed(server: TestServer, type: string, objectId: string, timeoutMs = 8_000): Promise<void> {
  await eventually(async () => {
    const rows = (
      await server.app.db.pool.query<{ activity_id: string; done: boolean; last_error: string | null }>(
        `SELECT activity_id, processed_at IS NOT NULL AS done, last_error FROM inbox_jobs
       WHERE body->>'type' = $1 AND (body->'object'->>'id' = $2 OR body->>'object' = $2)`,
        [type, objectId],
      )
    ).rows;
    assert.ok(rows.length > 0, `no ${type} of ${objectId} received`);
    for (const r of rows) {
      assert.ok(r.done, `${r.activity_id} not processed yet`);
      assert.equal(r.last_error, null, `${r.activity_id} failed`);
    }
  }, timeoutMs);
}

/** Waits until a local poll has no Update waiting to be sent (none due, none being queued): any it had is queued as deliveries. */
export async function pollUpdateQueued(server: TestServer, pollId: string, timeoutMs = 8_000): Promise<void> {
  await eventually(async () => {
    assert.equal(
      await count(server, 'SELECT count(*) AS n FROM polls WHERE id = $1 AND (update_due_at IS NOT NULL OR update_lease_until IS NOT NULL)', [pollId]),
      0,
      `poll ${pollId} has an Update pending`,
    );
  }, timeoutMs);
}

/** A poll to pass to pollCloserRound, posted by `token`'s member: give it a member nobody follows, so it reaches no one. */
export async function createMarkerPoll(server: TestServer, token: string): Promise<string> {
  const r = await fetch(`${server.url}/api/v1/statuses`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ status: 'marker', poll: { options: ['a', 'b'], expires_in: 3600 } }),
  });
  const body = (await r.json()) as { poll?: { id: string } };
  assert.equal(r.status, 200, JSON.stringify(body));
  return body.poll!.id;
}

/**
 * Kicks `server`'s poll closer and waits for a whole round of it that started after this call. The proof is the
 * marker poll (createMarkerPoll), ended here: the closer's one statement that closes it would have closed any other
 * poll due by then (and notified), and its final Update is sent by the same round's pass over due Updates, which
 * would have sent any other due Update. Its author gets a `poll` notification each time.
 */
export async function pollCloserRound(server: TestServer, markerPollId: string, timeoutMs = 8_000): Promise<void> {
  const reset = await server.app.db.pool.query(
    `UPDATE polls SET expires_at = now() - interval '1 second', closed_at = NULL, update_due_at = NULL, update_lease_until = NULL
     WHERE id = $1 AND remote_counts IS NULL`,
    [markerPollId],
  );
  assert.equal(reset.rowCount, 1, 'the marker is a local poll');
  server.app.pollCloser()!.kick();
  await eventually(async () => {
    const p = (
      await server.app.db.pool.query<{ closed: boolean; sent: boolean }>(
        'SELECT closed_at IS NOT NULL AS closed, update_due_at IS NULL AND update_lease_until IS NULL AS sent FROM polls WHERE id = $1',
        [markerPollId],
      )
    ).rows[0]!;
    assert.ok(p.closed && p.sent, `poll closer round not done: ${JSON.stringify(p)}`);
  }, timeoutMs);
}
