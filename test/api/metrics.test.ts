// /metrics as an operator's Prometheus sees it: off unless configured, behind a bearer token on the main server or
// on a separate listener, in the text format, with numbers that match what the server did (requests per route
// pattern, a delivery waiting for a retry, the pools, the actors). Parsed here, not just searched for names.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { api } from '../support/api.js';
import { createMembers } from '../support/members.js';
import { newSubscriber, type PushService, startPushService } from '../support/push-service.js';
import { startRecordingInbox, type RecordingInbox } from '../support/recording-inbox.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

const TOKEN = 'metrics-token-0123456789abcdef';

interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** The samples of a text exposition (comments and HELP/TYPE lines skipped). */
function parse(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    assert.ok(m, `not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    out.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}

/** The one sample of `name` whose labels include `labels`; fails if there is none or more than one. */
function value(samples: readonly Sample[], name: string, labels: Record<string, string> = {}): number {
  const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  assert.equal(found.length, 1, `${name} ${JSON.stringify(labels)}: ${found.length} samples`);
  return found[0]!.value;
}

async function scrape(url: string, authorization?: string): Promise<{ status: number; type: string | null; samples: Sample[] }> {
  const r = await fetch(`${url}/metrics`, { headers: authorization === undefined ? {} : { Authorization: authorization } });
  const text = await r.text();
  return { status: r.status, type: r.headers.get('content-type'), samples: r.status === 200 ? parse(text) : [] };
}

describe('/metrics without configuration', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s.stop());

  it('does not exist', async () => {
    assert.equal((await scrape(s.url)).status, 404);
    assert.equal((await scrape(s.url, `Bearer ${TOKEN}`)).status, 404);
    assert.equal(s.app.metricsPort, null);
  });
});

describe('/metrics behind METRICS_TOKEN', () => {
  let s: TestServer;
  let peer: RecordingInbox;
  let push: PushService;
  before(async () => {
    s = await startTestServer({ METRICS_TOKEN: TOKEN, BASE_URL: 'http://127.0.0.1:{port}', FEDERATION_ALLOW_PRIVATE: 'loopback' });
    peer = await startRecordingInbox({ actors: ['bob'] });
    push = await startPushService();
  });
  after(async () => {
    await s.stop();
    await peer.close();
    await push.close();
  });

  it('serves the text format with requests per route pattern, the waiting work of each queue, the pools and the actors', async () => {
    // First in this file to scrape this server: queue counts are read at most every 5 s, and must be read after
    // the delivery below is queued. A delivery that waits: a follow of a remote account whose inbox answers 503 (retried in 30 s by default).
    peer.setMode({ kind: 'status', status: 503 });
    const members = await createMembers(s, ['kim', 'lee']);
    const { token } = members;
    const bob = await s.app.federation.remote.byUri(peer.actorUrl('bob'));
    assert.equal((await api(s.url, token['kim'], 'POST', `/api/v1/accounts/${bob.id}/follow`)).status, 200);
    await eventually(() => assert.equal(peer.posts.filter((p) => p.status === 503).length, 1));
    await eventually(async () => {
      const [row] = (await s.app.db.pool.query<{ attempts: number }>('SELECT attempts FROM deliveries')).rows;
      assert.equal(row?.attempts, 1);
    });
    // A push that waits: kim's push service answers 503 to the push of lee's mention (retried later).
    push.answer = () => ({ status: 503 });
    const sub = newSubscriber(push, 'kim');
    const pushToken = await members.tokenFor('kim', ['read', 'push']);
    const subscribed = await api(s.url, pushToken, 'POST', '/api/v1/push/subscription', {
      subscription: { endpoint: sub.endpoint, keys: { p256dh: sub.p256dh, auth: sub.auth } },
      data: { alerts: { mention: true } },
    });
    assert.equal(subscribed.status, 200, subscribed.text);
    const hello = await api(s.url, token['lee'], 'POST', '/api/v1/statuses', { status: '@kim hello' });
    assert.equal(hello.status, 200);
    await eventually(() => assert.equal(push.received.length, 1));
    await eventually(async () => {
      const [row] = (await s.app.db.pool.query<{ attempts: number }>('SELECT attempts FROM push_deliveries')).rows;
      assert.equal(row?.attempts, 1);
    });
    // A history job that waits: bob's, backing off for an hour, queued 3 s ago.
    await s.app.db.pool.query(
      `INSERT INTO remote_histories (account_id, origin, state, retry_at, queued_at)
       VALUES ($1, $2, 'backoff', now() + interval '1 hour', now() - interval '3 seconds')`,
      [bob.id, new URL(peer.actorUrl('bob')).origin],
    );
    // A home-feed fan-out job that waits: queued 5 s ago, its lease held by a node that is not this one.
    await s.app.db.pool.query(
      `INSERT INTO home_feed_jobs (status_id, author_id, queued_at, lease_owner, lease_until)
       SELECT id, account_id, now() - interval '5 seconds', 'elsewhere', now() + interval '1 hour' FROM statuses WHERE id = $1`,
      [(hello.body as { id: string }).id],
    );

    // Requests to count: three to a static route, two to parametric ones (by pattern), one to no route.
    for (let i = 0; i < 3; i++) assert.equal((await fetch(`${s.url}/api/v1/instance`)).status, 200);
    assert.equal((await api(s.url, token['kim'], 'GET', '/api/v1/statuses/123')).status, 404);
    assert.equal((await api(s.url, token['kim'], 'GET', '/api/v1/statuses/456')).status, 404);
    assert.equal((await fetch(`${s.url}/no/such/path/789`)).status, 404);

    const r = await scrape(s.url, `Bearer ${TOKEN}`);
    assert.equal(r.status, 200);
    assert.match(r.type!, /^text\/plain; version=0\.0\.4/);
    const m = r.samples;

    // Latency per route pattern: counts, and the +Inf bucket equal to the count.
    const instance = { method: 'GET', route: '/api/v1/instance', status_class: '2xx' };
    assert.equal(value(m, 'stoa_http_request_duration_seconds_count', instance), 3);
    assert.equal(value(m, 'stoa_http_request_duration_seconds_bucket', { ...instance, le: '+Inf' }), 3);
    assert.ok(value(m, 'stoa_http_request_duration_seconds_sum', instance) > 0);
    assert.equal(value(m, 'stoa_http_request_duration_seconds_count', { method: 'GET', route: '/api/v1/statuses/:id', status_class: '4xx' }), 2);
    assert.equal(value(m, 'stoa_http_request_duration_seconds_count', { method: 'GET', route: 'unmatched', status_class: '4xx' }), 1);
    assert.equal(value(m, 'stoa_http_request_duration_seconds_count', { method: 'POST', route: '/api/v1/accounts/:id/follow', status_class: '2xx' }), 1);
    assert.ok(!m.some((x) => /\d{3}/.test(x.labels['route'] ?? '')), 'no raw path is a label');

    // The waiting delivery, push and history job, and an empty inbox queue.
    assert.equal(value(m, 'stoa_queue_rows', { queue: 'delivery' }), 1);
    const age = value(m, 'stoa_queue_oldest_age_seconds', { queue: 'delivery' });
    assert.ok(age > 0 && age < 60, `delivery age ${age}`);
    assert.equal(value(m, 'stoa_queue_rows', { queue: 'push' }), 1);
    const pushAge = value(m, 'stoa_queue_oldest_age_seconds', { queue: 'push' });
    assert.ok(pushAge > 0 && pushAge <= age, `push age ${pushAge}, delivery age ${age}`);
    assert.equal(value(m, 'stoa_queue_rows', { queue: 'history' }), 1);
    const historyAge = value(m, 'stoa_queue_oldest_age_seconds', { queue: 'history' });
    assert.ok(historyAge >= 3 && historyAge < 60, `history age ${historyAge}`);
    assert.equal(value(m, 'stoa_queue_rows', { queue: 'inbox' }), 0);
    assert.equal(value(m, 'stoa_queue_oldest_age_seconds', { queue: 'inbox' }), 0);
    assert.equal(value(m, 'stoa_queue_rows', { queue: 'home_feed' }), 1);
    const fanOutAge = value(m, 'stoa_queue_oldest_age_seconds', { queue: 'home_feed' });
    assert.ok(fanOutAge >= 5 && fanOutAge < 60, `home feed job age ${fanOutAge}`);

    // The host actor that tried the delivery is still alive (idle actors passivate after 30 s), its mailbox empty.
    assert.equal(value(m, 'stoa_actors', { kind: 'delivery' }), 1);
    assert.equal(value(m, 'stoa_actor_mailbox_depth', { kind: 'delivery' }), 0);

    // The pools.
    const connections = value(m, 'stoa_db_pool_connections');
    assert.ok(connections >= 1 && connections <= 10, `connections ${connections}`);
    assert.ok(value(m, 'stoa_db_pool_idle') <= connections);
    assert.equal(value(m, 'stoa_db_pool_waiting'), 0);
    assert.ok(value(m, 'stoa_verify_pool_threads') >= 1);
    assert.equal(value(m, 'stoa_verify_pool_queue_size'), 0);
    const utilization = value(m, 'stoa_verify_pool_utilization');
    assert.ok(utilization >= 0 && utilization <= 1);
    assert.equal(value(m, 'stoa_verify_pool_completed_total'), 0);

    // The process's default metrics.
    assert.ok(value(m, 'process_cpu_user_seconds_total') > 0);
    assert.ok(value(m, 'nodejs_heap_size_used_bytes') > 0);
  });

  it('refuses a missing or wrong token', async () => {
    for (const header of [undefined, 'Bearer wrong-token-0123456789abcdef', `Bearer ${TOKEN}x`, `Bearer  ${TOKEN}`, TOKEN, `bearer ${TOKEN}`]) {
      const r = await scrape(s.url, header);
      assert.equal(r.status, 401, String(header));
    }
  });

  it('counts a supervisor restart', async () => {
    const before = (await scrape(s.url, `Bearer ${TOKEN}`)).samples;
    assert.equal(before.filter((x) => x.name === 'stoa_supervisor_restarts_total').length, 0);
    // The poll closer is a permanent child of the root supervisor: stopped from outside, it is started again.
    const closer = s.app.supervisor.which('poll-closer')!;
    await closer.stop(1_000);
    await eventually(() => assert.notEqual(s.app.supervisor.which('poll-closer'), closer));
    const m = (await scrape(s.url, `Bearer ${TOKEN}`)).samples;
    assert.equal(value(m, 'stoa_supervisor_restarts_total', { supervisor: 'root', child: 'poll-closer' }), 1);
  });
});

describe('/metrics on METRICS_LISTEN', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ METRICS_LISTEN: '127.0.0.1:0' });
  });
  after(() => s.stop());

  it('is served only on its own listener, with the main server requests counted', async () => {
    assert.equal((await scrape(s.url)).status, 404);
    const port = s.app.metricsPort;
    assert.ok(port !== null && port !== s.app.port);
    const own = `http://127.0.0.1:${port}`;
    assert.equal((await fetch(`${s.url}/api/v2/instance`)).status, 200);
    const r = await scrape(own);
    assert.equal(r.status, 200);
    assert.match(r.type!, /^text\/plain; version=0\.0\.4/);
    assert.equal(value(r.samples, 'stoa_http_request_duration_seconds_count', { method: 'GET', route: '/api/v2/instance', status_class: '2xx' }), 1);
    assert.equal((await fetch(`${own}/other`)).status, 404);
    assert.equal((await fetch(`${own}/metrics`, { method: 'POST' })).status, 405);
  });
});

describe('/metrics on METRICS_LISTEN with a token', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ METRICS_LISTEN: '127.0.0.1:0', METRICS_TOKEN: TOKEN });
  });
  after(() => s.stop());

  it('requires the token on both', async () => {
    const own = `http://127.0.0.1:${s.app.metricsPort}`;
    for (const url of [s.url, own]) {
      assert.equal((await scrape(url)).status, 401, url);
      assert.equal((await scrape(url, 'Bearer nope')).status, 401, url);
      assert.equal((await scrape(url, `Bearer ${TOKEN}`)).status, 200, url);
    }
  });
});

describe('METRICS_LISTEN on a port in use', () => {
  it('stops the start with a message naming it', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as net.AddressInfo;
    try {
      await assert.rejects(startTestServer({ METRICS_LISTEN: `127.0.0.1:${port}` }), new RegExp(`^Error: METRICS_LISTEN: port ${port} is in use$`));
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});
