// Debian's real nginx in front of a real server over TLS, configured with the README's own server block (read from
// README.md, so the documentation cannot drift from what is tested): HTTPS and HTTP/1.0 clients get answers, a
// photo larger than nginx's default body limit uploads, server-sent events arrive as they happen, and the server sees
// the client's address, not nginx's.
import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import sharp from 'sharp';
import { api } from '../support/api.js';
import { createMembers } from '../support/members.js';
import { deliverable } from '../support/raw-http.js';
import { freePort, startTestServer, type TestServer } from '../support/server.js';
import { subscribed } from '../support/streaming.js';
import { eventually } from '../support/wait.js';

const NGINX = '/usr/sbin/nginx';
const README = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../README.md');

/** The ```nginx block under "Behind a reverse proxy". */
async function readmeNginxBlock(): Promise<string> {
  const readme = await readFile(README, 'utf8');
  const section = readme.slice(readme.indexOf('## Behind a reverse proxy'));
  const m = /```nginx\n([\s\S]*?)```/.exec(section);
  assert.ok(readme.includes('## Behind a reverse proxy') && m, 'README.md has a "Behind a reverse proxy" section with an nginx block');
  return m[1]!;
}

/** Replaces exactly one occurrence: if the README's block changes shape, the test says so instead of testing less. */
function substitute(text: string, from: string, to: string): string {
  assert.equal(text.split(from).length - 1, 1, `the README's nginx block contains "${from}" exactly once`);
  return text.replace(from, to);
}

function run(cmd: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => execFile(cmd, args, (err, _out, stderr) => (err ? reject(new Error(`${cmd}: ${stderr}`)) : resolve())));
}

interface Reply {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: Buffer;
}

describe('behind nginx over TLS, with the README configuration', () => {
  let s: TestServer;
  let nginx: ChildProcess;
  let nginxExited: Promise<void>;
  let dir: string;
  let cert: Buffer;
  let tlsPort: number;
  let httpPort: number;

  /** A request to nginx's TLS port, trusting only the test's certificate, from the given loopback address. */
  function viaNginx(o: { method?: string; path: string; headers?: Record<string, string>; body?: Buffer; from?: string }): Promise<Reply> {
    return new Promise((resolve, reject) => {
      const req = https.request(
        {
          host: '127.0.0.1',
          port: tlsPort,
          servername: 'localhost',
          ca: cert,
          agent: false,
          method: o.method ?? 'GET',
          path: o.path,
          localAddress: o.from,
          headers: { host: `localhost:${tlsPort}`, ...(o.body ? { 'content-length': String(o.body.length) } : {}), ...o.headers },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(o.body);
    });
  }

  before(async () => {
    assert.ok(existsSync(NGINX), `${NGINX} is missing: install Debian's nginx (apt-get install nginx; .ci/run does)`);
    dir = await mkdtemp(path.join(os.tmpdir(), 'stoa-nginx-'));
    tlsPort = await freePort();
    httpPort = await freePort();
    s = await startTestServer({ TRUST_PROXY: 'true', BASE_URL: `https://localhost:${tlsPort}` });

    await run('openssl', [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
      '-keyout',
      path.join(dir, 'key.pem'),
      '-out',
      path.join(dir, 'cert.pem'),
    ]);
    cert = await readFile(path.join(dir, 'cert.pem'));

    let site = await readmeNginxBlock();
    site = substitute(site, 'server 127.0.0.1:3000;', `server 127.0.0.1:${s.app.port};`);
    site = substitute(site, 'listen 443 ssl', `listen 127.0.0.1:${tlsPort} ssl`);
    site = substitute(site, 'listen 80;', `listen 127.0.0.1:${httpPort};`);
    site = substitute(site, '/etc/letsencrypt/live/social.example.com/fullchain.pem', path.join(dir, 'cert.pem'));
    site = substitute(site, '/etc/letsencrypt/live/social.example.com/privkey.pem', path.join(dir, 'key.pem'));
    // Only what running unprivileged in a temporary directory needs surrounds the README's block.
    const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'];
    for (const t of temp) await mkdir(path.join(dir, t));
    const conf = [
      'daemon off;',
      'worker_processes 1;',
      // As root nginx would run its worker as nobody, who cannot enter this 0700 directory.
      process.getuid?.() === 0 ? 'user root;' : '',
      `pid ${dir}/nginx.pid;`,
      `error_log ${dir}/error.log info;`,
      'events { worker_connections 64; }',
      'http {',
      `  access_log ${dir}/access.log;`,
      ...temp.map((t) => `  ${t}_temp_path ${dir}/${t};`),
      site,
      '}',
    ].join('\n');
    await writeFile(path.join(dir, 'nginx.conf'), conf);
    nginx = spawn(NGINX, ['-c', path.join(dir, 'nginx.conf'), '-p', dir, '-e', path.join(dir, 'error.log')], { stdio: ['ignore', 'inherit', 'inherit'] });
    nginxExited = new Promise((r) => nginx.on('exit', () => r()));
    await eventually(async () => {
      assert.equal(nginx.exitCode, null, `nginx exited: ${await readFile(path.join(dir, 'error.log'), 'utf8').catch(() => '')}`);
      assert.equal((await viaNginx({ path: '/health' })).status, 200);
    }, 15_000);
  });

  after(async () => {
    if (nginx && nginx.exitCode === null) {
      nginx.kill('SIGTERM'); // fast shutdown: the master stops its workers, then exits
      const killed = setTimeout(() => nginx.kill('SIGKILL'), 5_000);
      await nginxExited;
      clearTimeout(killed);
    }
    await s?.stop();
  });

  it('serves the instance document over HTTPS', async () => {
    const r = await viaNginx({ path: '/api/v1/instance' });
    assert.equal(r.status, 200);
    assert.match(String(r.headers['content-type']), /application\/json/);
    const instance = JSON.parse(r.body.toString()) as { uri: string; title: string };
    assert.equal(instance.title, 'Stoa');
  });

  it('answers an HTTP/1.0 client', async () => {
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = tls.connect({ host: '127.0.0.1', port: tlsPort, servername: 'localhost', ca: cert }, () => {
        socket.write(`GET /api/v1/instance HTTP/1.0\r\nHost: localhost:${tlsPort}\r\n\r\n`);
      });
      let text = '';
      socket.on('data', (d: Buffer) => (text += d.toString()));
      socket.on('end', () => resolve(text)); // HTTP/1.0: the response ends when the connection does
      socket.on('error', reject);
    });
    assert.match(raw, /^HTTP\/1\.[01] 200 /);
    const body = JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4)) as { title: string };
    assert.equal(body.title, 'Stoa');
  });

  it('redirects plain HTTP to HTTPS', async () => {
    const location = await new Promise<[number, string | undefined]>((resolve, reject) => {
      http
        .get({ host: '127.0.0.1', port: httpPort, path: '/about', headers: { host: 'social.example.com' }, agent: false }, (res) => {
          res.resume();
          resolve([res.statusCode!, res.headers.location]);
        })
        .on('error', reject);
    });
    assert.deepEqual(location, [301, 'https://social.example.com/about']);
  });

  it('streams server-sent events through the streaming location, each event whole at once', async () => {
    const direct = { ...s, url: `http://127.0.0.1:${s.app.port}` };
    const members = await createMembers(direct, ['listener', 'poster']);
    const socket = tls.connect({ host: '127.0.0.1', port: tlsPort, servername: 'localhost', ca: cert });
    const received: Buffer[] = [];
    socket.on('data', (d: Buffer) => received.push(d));
    await new Promise<void>((resolve) => socket.once('secureConnect', () => resolve()));
    socket.write(`GET /api/v1/streaming/public HTTP/1.1\r\nHost: localhost:${tlsPort}\r\nAuthorization: Bearer ${members.token['listener']}\r\n\r\n`);
    await subscribed(s, members.id['listener']!, 'public');
    const post = await api(direct.url, members.token['poster'], 'POST', '/api/v1/statuses', { status: 'through nginx' });
    assert.equal(post.status, 200);
    await eventually(() => assert.ok(Buffer.concat(received).includes('event: update')));
    await eventually(
      () => {
        const got = deliverable(Buffer.concat(received));
        assert.match(got?.headers ?? '', /^HTTP\/1\.1 200 /);
        const update = /^:\)\nevent: update\ndata: (.*)\n\n$/.exec(got!.body);
        assert.ok(update, `the whole update is deliverable: ${JSON.stringify(got!.body.slice(0, 60))}`);
        assert.equal(JSON.parse(update[1]!).id, post.body.id);
      },
      100,
      5,
    );
    socket.destroy();
    await eventually(() => assert.equal([...s.app.streaming.hub.clients].length, 0));
  });

  it('uploads a photo larger than nginx’s default body limit, and serves it back', async () => {
    // Set-up goes to the server directly; only the upload and the download go through nginx.
    const members = await createMembers({ ...s, url: `http://127.0.0.1:${s.app.port}` }, ['uploader']);
    const token = members.token['uploader']!;
    // Noise does not compress: a PNG of about 1.9 MB, past nginx's default client_max_body_size of 1 MiB.
    const photo = await sharp(randomBytes(800 * 800 * 3), { raw: { width: 800, height: 800, channels: 3 } })
      .png()
      .toBuffer();
    assert.ok(photo.length > 1024 * 1024);
    const form = new FormData();
    form.set('file', new Blob([photo], { type: 'image/png' }), 'noise.png');
    form.set('description', 'noise');
    const encoded = new Response(form);
    const r = await viaNginx({
      method: 'POST',
      path: '/api/v2/media',
      headers: { authorization: `Bearer ${token}`, 'content-type': encoded.headers.get('content-type')! },
      body: Buffer.from(await encoded.arrayBuffer()),
    });
    assert.ok(r.status === 200 || r.status === 202, `upload through nginx: ${r.status} ${r.body.toString().slice(0, 300)}`);
    const media = JSON.parse(r.body.toString()) as { id: string; type: string; url: string | null; description: string };
    assert.equal(media.type, 'image');
    assert.equal(media.description, 'noise');
    let url: string | null = media.url;
    await eventually(async () => {
      if (!url) {
        const again = await viaNginx({ path: `/api/v1/media/${media.id}`, headers: { authorization: `Bearer ${token}` } });
        url = (JSON.parse(again.body.toString()) as { url: string | null }).url;
      }
      assert.ok(url, 'the media is processed');
    });
    const file = await viaNginx({ path: new URL(url!).pathname });
    assert.equal(file.status, 200);
    assert.match(String(file.headers['content-type']), /^image\//);
    assert.ok(file.body.length > 1024 * 1024, 'the whole file came back through nginx');
  });

  it('sees the client address nginx puts in X-Forwarded-For, not nginx’s and not one the client claims', async () => {
    const from = '127.0.0.2'; // nginx itself reaches the server from 127.0.0.1
    const page = await viaNginx({ path: '/auth/sign_in', from });
    assert.equal(page.status, 200);
    const cookies = (page.headers['set-cookie'] ?? []).map((c) => c.split(';', 1)[0]).join('; ');
    const csrf = /name="authenticity_token" value="([^"]+)"/.exec(page.body.toString())![1]!;
    const signIn = await viaNginx({
      method: 'POST',
      path: '/auth/sign_in',
      from,
      headers: { cookie: cookies, 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': '203.0.113.9' },
      body: Buffer.from(new URLSearchParams({ authenticity_token: csrf, login: 'admin', password: s.app.firstAdmin!.password }).toString()),
    });
    assert.equal(signIn.status, 303, signIn.body.toString().slice(0, 500));
    const client = new pg.Client({ connectionString: s.databaseUrl });
    await client.connect();
    try {
      const row = await client.query<{ ip: string }>(
        `SELECT u.last_sign_in_ip AS ip FROM users u JOIN accounts a ON a.id = u.account_id WHERE a.username = 'admin'`,
      );
      assert.equal(row.rows[0]?.ip, from);
    } finally {
      await client.end();
    }
  });
});
