// One VAPID key pair per cluster: two nodes starting at once on a fresh database show the same key (the first
// stored wins, the other reads it back), and a node started later keeps it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { api } from '../support/api.js';
import { freshDatabaseUrl } from '../support/db.js';
import { startTestServer } from '../support/server.js';

describe('VAPID keys across nodes', () => {
  it('are generated once and shared by every node', async () => {
    const db = await freshDatabaseUrl();
    const [a, b] = await Promise.all([startTestServer({}, db), startTestServer({}, db)]);
    try {
      const keyOf = async (url: string) => (await api(url, undefined, 'GET', '/api/v2/instance')).body.configuration.vapid.public_key as string;
      const [ka, kb] = await Promise.all([keyOf(a.url), keyOf(b.url)]);
      assert.match(ka, /^[A-Za-z0-9_-]{87}$/);
      assert.equal(kb, ka);
      await a.stop();
      const c = await startTestServer({}, db);
      try {
        assert.equal(await keyOf(c.url), ka);
      } finally {
        await c.stop();
      }
    } finally {
      await Promise.allSettled([a.stop(), b.stop()]);
    }
  });
});
