// Throttles hold for the cluster: two Stoa nodes on one database (one in this process, one a process of its own)
// allow together, attempts alternating between them, what one node allows alone: 10 wrong-password sign-ins, 5
// sign-ups, 300 app registrations from one address, then 429.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hashPassword } from '../../src/auth/password.js';
import { UserStore } from '../../src/store/users.js';
import { CookieJar, getForm, postForm } from '../support/forms.js';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';
import { freePort, startTestServer, type TestServer } from '../support/server.js';

describe('throttles across two nodes sharing the database', () => {
  let a: TestServer;
  let b: ServerProcess;
  /** The nodes in turn: attempt i goes to node i mod 2. */
  const node = (i: number) => (i % 2 === 0 ? a.url : b.url);

  before(async () => {
    // Both on 127.0.0.1, so both see the same client address (fetch may take ::1 for localhost).
    a = await startTestServer({ BASE_URL: 'http://127.0.0.1:{port}', REGISTRATIONS: 'open' });
    b = await startServerProcess({ databaseUrl: a.databaseUrl, port: await freePort(), host: '127.0.0.1', env: { REGISTRATIONS: 'open' } });
    await new UserStore(a.app.db).create({
      username: 'nina',
      email: 'nina@example.test',
      passwordHash: await hashPassword('nina-password'),
      roleId: 0,
      approved: true,
    });
  });
  after(async () => {
    if (b) {
      b.child.kill('SIGTERM');
      assert.equal(await b.exited, 0, `node B exits cleanly on SIGTERM:\n${b.output()}`);
    }
    await a?.stop();
  });

  async function submit(base: string, path: string, fields: Record<string, string>): Promise<Response> {
    const jar = new CookieJar();
    const { token } = await getForm(`${base}${path}`, jar);
    return postForm(`${base}${path}`, jar, { authenticity_token: token, ...fields });
  }

  it('wrong-password sign-ins alternating between the nodes get 429 after the 10 one node allows', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await submit(node(i), '/auth/sign_in', { login: 'nina', password: 'wrong' })).status);
    assert.deepEqual(statuses, [...Array<number>(10).fill(401), 429]);
    for (const base of [a.url, b.url]) {
      const right = await submit(base, '/auth/sign_in', { login: 'nina', password: 'nina-password' });
      assert.equal(right.status, 429, `${base}: even the right password waits`);
      const wait = Number(right.headers.get('retry-after'));
      assert.ok(wait > 200 && wait <= 300, `Retry-After ${wait}`);
      assert.match(await right.text(), /Too many sign-in attempts\. Try again in \d+ seconds\./);
    }
  });

  it('sign-ups alternating between the nodes get 429 after the 5 one node allows', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const password = `password-${i}-long`;
      const r = await submit(node(i), '/auth/sign_up', { username: `new${i}`, email: `new${i}@example.test`, password, password_confirmation: password });
      statuses.push(r.status);
    }
    assert.deepEqual(statuses, [303, 303, 303, 303, 303, 429]);
  });

  it('app registrations alternating between the nodes get 429 after the 300 one node allows', async () => {
    const register = (base: string) =>
      fetch(`${base}/api/v1/apps`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'Throttled', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob', scopes: 'read' }),
      });
    const statuses: number[] = [];
    for (let i = 0; i < 300; i++) statuses.push((await register(node(i))).status);
    assert.deepEqual(
      statuses.filter((s) => s !== 200),
      [],
      'the first 300 are registered',
    );
    for (const base of [a.url, b.url]) {
      const r = await register(base);
      assert.equal(r.status, 429, `${base}: the 301st and later are refused`);
      assert.ok(Number(r.headers.get('retry-after')) > 0);
    }
  });
});
