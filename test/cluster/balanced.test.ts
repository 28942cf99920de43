// The README's cluster example run as it is: examples/cluster/run.sh starts two Stoa processes on one database with
// one data directory and Debian's nginx in front (examples/cluster/nginx.conf, round-robin). Everything goes through
// nginx, and every answer says which node gave it (nginx's X-Stoa-Node), so "the other node" is checked, not hoped:
// a member signs in and posts on one node and reads it back on the other, a revoked token is refused by both at once,
// wrong-password sign-ins get 429 after the 10 one node allows, and a WebSocket on one node hears a post made on the other.
import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import { freshDatabaseUrl } from '../support/db.js';
import { png, upload } from '../support/media.js';
import type { CookieJar } from '../support/forms.js';
import { registerApp, type RegisteredApp, signIn, userToken } from '../support/oauth.js';
import { freePort } from '../support/server.js';
import { eventually } from '../support/wait.js';

const RUN_SH = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../examples/cluster/run.sh');
const STOA_CLI = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src/cli/stoa.js');
const NGINX = '/usr/sbin/nginx';
/** The address the throttled sign-ins come from (nginx reaches the nodes from 127.0.0.1 whoever the client is). */
const FROM = '127.0.0.2';

function run(cmd: string, args: string[], env: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) =>
    execFile(cmd, args, { env: { ...process.env, ...env } }, (err, _out, stderr) => (err ? reject(new Error(`${args.join(' ')}: ${stderr}`)) : resolve())),
  );
}

interface Answer {
  readonly status: number;
  /** The node that answered, as nginx names it (127.0.0.1:<port>). */
  readonly node: string;
  readonly body: string;
}

describe('the cluster example: two nodes behind nginx', () => {
  let script: ChildProcess;
  let exited: Promise<number | null>;
  let output = '';
  let dir: string;
  let databaseUrl: string;
  let base: string;
  let nodes: [string, string];
  let password: string;
  let jar: CookieJar;
  let app: RegisteredApp;
  let token: string;

  async function via(p: string, init: { method?: string; token?: string; json?: unknown; form?: Record<string, string> } = {}): Promise<Answer> {
    const headers: Record<string, string> = {};
    if (init.token) headers['authorization'] = `Bearer ${init.token}`;
    if (init.json !== undefined) headers['content-type'] = 'application/json';
    if (init.form) headers['content-type'] = 'application/x-www-form-urlencoded';
    const r = await fetch(base + p, {
      method: init.method ?? 'GET',
      headers,
      body: init.json !== undefined ? JSON.stringify(init.json) : init.form ? new URLSearchParams(init.form).toString() : undefined,
    });
    const node = r.headers.get('x-stoa-node');
    assert.ok(node && nodes.includes(node), `answered by one of the nodes (X-Stoa-Node: ${node})`);
    return { status: r.status, node, body: await r.text() };
  }

  /** One request to nginx from a given loopback address (fetch cannot choose its source address). */
  function from(address: string, method: string, p: string, cookie: string, body?: string): Promise<Answer & { cookies: string }> {
    return new Promise((resolve, reject) => {
      const headers: Record<string, string> = { cookie };
      if (body !== undefined)
        Object.assign(headers, { 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(Buffer.byteLength(body)) });
      const req = http.request(`${base}${p}`, { method, localAddress: address, agent: false, headers }, (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (d: string) => (text += d));
        res.on('end', () => {
          const cookies = (res.headers['set-cookie'] ?? []).map((c) => c.split(';', 1)[0]).join('; ');
          resolve({ status: res.statusCode!, node: String(res.headers['x-stoa-node']), body: text, cookies });
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  before(async () => {
    assert.ok(existsSync(NGINX), `${NGINX} is missing: install Debian's nginx (apt-get install nginx; .ci/run does)`);
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'stoa-balanced-'));
    databaseUrl = await freshDatabaseUrl();
    const [port, port1, port2] = [await freePort(), await freePort(), await freePort()];
    base = `http://127.0.0.1:${port}`;
    nodes = [`127.0.0.1:${port1}`, `127.0.0.1:${port2}`];
    script = spawn('bash', [RUN_SH], {
      env: {
        ...process.env,
        DATABASE_URL: databaseUrl,
        STOA_DATA_DIR: path.join(dir, 'data'),
        CLUSTER_RUN_DIR: path.join(dir, 'run'),
        PORT: String(port),
        NODE1_PORT: String(port1),
        NODE2_PORT: String(port2),
        BASE_URL: base,
        LOG_LEVEL: 'warn',
        SHUTDOWN_GRACE_MS: '2000',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    script.stdout!.on('data', (d) => (output += d.toString()));
    script.stderr!.on('data', (d) => (output += d.toString()));
    exited = new Promise((resolve) => script.on('exit', (code) => resolve(code)));
    await eventually(
      async () => {
        assert.equal(script.exitCode, null, `run.sh exited:\n${output}`);
        assert.match(output, /^nginx: pid \d+/m, 'run.sh has started nginx');
        assert.equal((await fetch(`${base}/health`)).status, 200);
      },
      90_000,
      100,
    );
    // Node 1 created the Owner on this new database and printed the one-time password in its banner.
    password = /password: (\S+)/.exec(await fs.readFile(path.join(dir, 'run', 'node1.log'), 'utf8'))?.[1] ?? '';
    assert.ok(password, `node 1 printed the Owner's password:\n${output}`);
  });

  after(async () => {
    if (script && script.exitCode === null) {
      script.kill('SIGTERM');
      const killed = setTimeout(() => script.kill('SIGKILL'), 30_000);
      const code = await exited;
      clearTimeout(killed);
      assert.equal(code, 143, `run.sh stops the nodes and nginx on SIGTERM and exits:\n${output}`);
    }
    if (dir) await fs.rm(dir, { recursive: true, force: true });
  });

  it('sends requests to both nodes in turn', async () => {
    const seen = [];
    for (let i = 0; i < 4; i++) seen.push((await via('/api/v1/instance')).node);
    assert.deepEqual(new Set(seen), new Set(nodes));
    for (let i = 1; i < seen.length; i++) assert.notEqual(seen[i], seen[i - 1], `round-robin: ${seen.join(' ')}`);
  });

  it('signs a member in, and a post made on one node is read back on the next request, from the other', async () => {
    jar = await signIn(base, 'admin', password);
    app = await registerApp(base, { scopes: 'read write' });
    token = await userToken(base, jar, app, 'read write');
    const posted = await via('/api/v1/statuses', { method: 'POST', token, json: { status: 'written on one node' } });
    assert.equal(posted.status, 200, posted.body);
    const id = (JSON.parse(posted.body) as { id: string }).id;
    const read = await via(`/api/v1/statuses/${id}`, { token });
    assert.notEqual(read.node, posted.node, 'the read went to the other node');
    assert.equal(read.status, 200, read.body);
    assert.match((JSON.parse(read.body) as { content: string }).content, /written on one node/);
  });

  it('serves an upload made through nginx from both nodes', async () => {
    const picture = png(32, 24);
    const uploaded = await upload(base, token, picture);
    assert.ok(uploaded.status === 200 || uploaded.status === 202, JSON.stringify(uploaded.body));
    const id = (uploaded.body as { id: string }).id;
    let url = (uploaded.body as { url: string | null }).url;
    await eventually(async () => {
      url ??= (JSON.parse((await via(`/api/v1/media/${id}`, { token })).body) as { url: string | null }).url;
      assert.ok(url, 'the upload is processed');
    });
    const file = new URL(url!).pathname;
    const served = new Map<string, Buffer>();
    for (let i = 0; i < 4 && served.size < 2; i++) {
      const r = await fetch(base + file);
      assert.equal(r.status, 200, `${file} from ${r.headers.get('x-stoa-node')}`);
      served.set(r.headers.get('x-stoa-node')!, Buffer.from(await r.arrayBuffer()));
    }
    assert.deepEqual(new Set(served.keys()), new Set(nodes), 'both nodes served the file');
    const [a, b] = [...served.values()];
    assert.ok(a!.length > 0 && a!.equals(b!), 'the same bytes from each');
  });

  it('refuses a revoked token on both nodes at once', async () => {
    const doomed = await userToken(base, jar, app, 'read');
    // Both nodes know the token first (each has it cached), so the revocation has something to undo on each.
    const before = [await via('/api/v1/accounts/verify_credentials', { token: doomed }), await via('/api/v1/accounts/verify_credentials', { token: doomed })];
    assert.deepEqual(
      before.map((a) => a.status),
      [200, 200],
    );
    assert.deepEqual(new Set(before.map((a) => a.node)), new Set(nodes));
    const revoked = await via('/oauth/revoke', { method: 'POST', form: { client_id: app.client_id, client_secret: app.client_secret, token: doomed } });
    assert.equal(revoked.status, 200, revoked.body);
    const afterwards = [
      await via('/api/v1/accounts/verify_credentials', { token: doomed }),
      await via('/api/v1/accounts/verify_credentials', { token: doomed }),
    ];
    assert.deepEqual(
      afterwards.map((a) => a.status),
      [401, 401],
      'refused on the very next requests',
    );
    assert.deepEqual(new Set(afterwards.map((a) => a.node)), new Set(nodes));
  });

  it('delivers a post made through nginx on one node to a WebSocket held through nginx by the other', async () => {
    let wsNode: string | undefined;
    const frames: { event?: string; payload?: string }[] = [];
    const ws = new WebSocket(`${base.replace(/^http/, 'ws')}/api/v1/streaming?stream=public:local`, [token]);
    ws.on('upgrade', (res) => (wsNode = String(res.headers['x-stoa-node'])));
    ws.on('message', (data) => frames.push(JSON.parse(data.toString()) as { event?: string; payload?: string }));
    // The node subscribes ?stream= as it opens the socket, before the client hears it open.
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    try {
      assert.ok(wsNode && nodes.includes(wsNode), `the upgrade was answered by a node (X-Stoa-Node: ${wsNode})`);
      const posted = await via('/api/v1/statuses', { method: 'POST', token, json: { status: 'heard on the other node' } });
      assert.equal(posted.status, 200, posted.body);
      assert.notEqual(posted.node, wsNode, 'the post went to the node not holding the socket');
      const id = (JSON.parse(posted.body) as { id: string }).id;
      await eventually(() => {
        const update = frames.find((f) => f.event === 'update' && (JSON.parse(f.payload ?? '{}') as { id?: string }).id === id);
        assert.ok(update, `the socket received the post (frames: ${JSON.stringify(frames)})`);
      });
    } finally {
      ws.close();
    }
  });

  it('answers wrong-password sign-ins on both nodes with 429 after the 10 one node allows', async () => {
    // A member made the operator's way; attempts from an address of their own (127.0.0.2: the Owner's sign-in above
    // counted against 127.0.0.1), which the nodes learn only from nginx's X-Forwarded-For (TRUST_PROXY).
    await run(process.execPath, [STOA_CLI, 'users', 'create', '--username', 'nina', '--password', 'nina-password'], { DATABASE_URL: databaseUrl });
    const statuses: number[] = [];
    const answeredBy = new Set<string>();
    for (let i = 0; i < 11; i++) {
      // A form is two requests (page, then POST): one more on every other attempt puts the POSTs on both nodes.
      if (i % 2 === 1) await via('/health');
      const page = await from(FROM, 'GET', '/auth/sign_in', '');
      const csrf = /name="authenticity_token" value="([^"]+)"/.exec(page.body)![1]!;
      const fields = new URLSearchParams({ authenticity_token: csrf, login: 'nina', password: 'wrong' });
      const r = await from(FROM, 'POST', '/auth/sign_in', page.cookies, fields.toString());
      statuses.push(r.status);
      answeredBy.add(r.node);
    }
    assert.deepEqual(statuses, [...Array<number>(10).fill(401), 429]);
    assert.deepEqual(answeredBy, new Set(nodes), 'the attempts were answered by both nodes');
  });
});
