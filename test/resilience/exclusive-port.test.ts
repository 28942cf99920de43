// Two servers on one port: the second must not start (uSockets would share the port and split the requests
// between them); it exits saying why, and the first keeps every request. Sharing happens only when asked for.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { loadConfig } from '../../config/schema.js';
import { HttpServer } from '../../src/http/server.js';
import { errorPage } from '../../src/web/layout.js';
import { freePort } from '../support/server.js';
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

describe('HTTP listening', () => {
  const servers: HttpServer[] = [];
  const serve = (env: Record<string, string>) => {
    const s = new HttpServer({ config: loadConfig({ LOG_LEVEL: 'silent', ...env }), log: pino({ level: 'silent' }), errorPage: errorPage('Stoa'), routes: [] });
    servers.push(s);
    return s;
  };
  after(() => {
    for (const s of servers) s.stopAccepting();
  });

  it('refuses a port another server listens on, saying so, instead of sharing it', async () => {
    // A fixed port, as operators configure it (Linux never shares a port it picked for PORT=0).
    const port = await freePort();
    await serve({ PORT: String(port) }).listen();
    await assert.rejects(serve({ PORT: String(port) }).listen(), { message: `port ${port} is in use` });
    const other = net.createServer();
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
    const taken = (other.address() as net.AddressInfo).port;
    try {
      await assert.rejects(serve({ PORT: String(taken) }).listen(), { message: `port ${taken} is in use` });
    } finally {
      await new Promise((r) => other.close(r));
    }
  });

  it('shares a port when the operator asks for it (LISTEN_REUSE_PORT)', async () => {
    const port = await freePort();
    await serve({ PORT: String(port), LISTEN_REUSE_PORT: 'true' }).listen();
    assert.equal(await serve({ PORT: String(port), LISTEN_REUSE_PORT: 'true' }).listen(), port);
  });
});
