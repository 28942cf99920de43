// Two servers on one port: the second must not start (uSockets would share the port and split the requests
// between them); it exits saying why, and the first keeps every request.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startServerProcess } from '../support/server-process.js';
import { startTestServer, type TestServer } from '../support/server.js';

describe('a port already in use', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s?.stop());

  it('stops a second server from starting, with one clear line, and the first keeps serving', async () => {
    const port = Number(new URL(s.url).port);
    await assert.rejects(startServerProcess({ databaseUrl: s.databaseUrl, port }), (e: Error) => {
      assert.match(e.message, /exited with 1 before serving/);
      assert.match(e.message, new RegExp(`^Stoa failed to start: port ${port} is in use$`, 'm'));
      return true;
    });
    assert.equal((await fetch(`${s.url}/health`)).status, 200);
  });
});
