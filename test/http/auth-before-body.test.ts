// The front end checks a route's auth rule before it reads the body: a refused token is answered at once, and a
// token still being looked up when the client goes away (or its body is refused) leaves nothing behind, in
// particular no unhandled rejection, which would end the process.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { rawExchange } from '../support/raw-http.js';
import { startTestServer, type TestServer } from '../support/server.js';

describe('authentication before the body', () => {
  let s: TestServer;
  before(async () => (s = await startTestServer()));
  after(() => s.stop());

  it('refuses a missing token with 401 without waiting for a body that never comes', async () => {
    const answer = await rawExchange(
      s.url,
      'POST /api/v1/statuses HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"status":',
    );
    assert.match(answer, /^HTTP\/1\.1 401 /);
  });

  it('survives clients that leave mid-body while their unknown token is being looked up', async () => {
    for (let i = 0; i < 20; i++) {
      await rawExchange(
        s.url,
        `POST /api/v1/statuses HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer unknown-token-${i}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"status":`,
        { destroyAfterWrite: true },
      );
    }
    // The same tokens again: each is answered 401 from the lookups above having finished (and been refused).
    for (let i = 0; i < 20; i++) {
      const r = await fetch(`${s.url}/api/v1/statuses`, {
        method: 'POST',
        headers: { Authorization: `Bearer unknown-token-${i}`, 'Content-Type': 'application/json' },
        body: '{"status":"x"}',
      });
      assert.equal(r.status, 401);
    }
    assert.equal((await fetch(`${s.url}/health`)).status, 200, 'the server (and this process) still runs');
  });
});
