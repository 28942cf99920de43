// The Idempotency-Key window of POST /api/v1/statuses: a retry within a day gets the status the first request made,
// a retry after it makes a new status (the key is kept a day, as on Mastodon). The window is decided by the
// database's clock against the key's stored time, so the test ages that stored time rather than waiting a day.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Json } from '../support/api.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';

describe('statuses API: the Idempotency-Key window', () => {
  let s: TestServer;
  let m: LocalMembers;

  before(async () => {
    s = await startTestServer();
    m = await createMembers(s, ['amy']);
  });
  after(async () => {
    await s?.stop();
  });

  async function post(text: string, key: string): Promise<Json> {
    const res = await fetch(`${s.url}/api/v1/statuses`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${m.token['amy']}`, 'Content-Type': 'application/json', 'Idempotency-Key': key },
      body: JSON.stringify({ status: text }),
    });
    const body = (await res.json()) as Json;
    assert.equal(res.status, 200, JSON.stringify(body));
    return body;
  }

  async function ownIds(): Promise<string[]> {
    const res = await fetch(`${s.url}/api/v1/accounts/${m.id['amy']}/statuses?limit=40`, { headers: { Authorization: `Bearer ${m.token['amy']}` } });
    assert.equal(res.status, 200);
    return ((await res.json()) as Json[]).map((x) => x.id);
  }

  /** Makes amy's record of this key as old as given, as if that much time had passed since the post. */
  async function ageKey(key: string, age: string): Promise<void> {
    const n = await s.app.db.exec(`UPDATE status_idempotency SET created_at = now() - $3::interval WHERE account_id = $1 AND key = $2`, [
      m.id['amy'],
      key,
      age,
    ]);
    assert.equal(n, 1, `one stored record for ${key}`);
  }

  it('answers a retry 23 hours later with the first status, and one 25 hours later with a new one', async () => {
    const first = await post('first attempt', 'day-key');

    await ageKey('day-key', '23 hours');
    const within = await post('retried within the day', 'day-key');
    assert.equal(within.id, first.id);
    assert.equal(within.content, '<p>first attempt</p>');
    assert.deepEqual(await ownIds(), [first.id]);

    await ageKey('day-key', '25 hours');
    const later = await post('posted again the next day', 'day-key');
    assert.notEqual(later.id, first.id);
    assert.equal(later.content, '<p>posted again the next day</p>');
    assert.deepEqual(await ownIds(), [later.id, first.id]);

    // The key now stands for the new status, for a day from its post.
    const retry = await post('a retry of the new one', 'day-key');
    assert.equal(retry.id, later.id);
    assert.deepEqual(await ownIds(), [later.id, first.id]);
  });
});
