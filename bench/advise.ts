// `npm run bench -- --advise`: tries the pool settings on the machine it runs on and prints what it recommends,
// with the figures behind it. Each setting gets its own Stoa process on the same seeded database and a short wrk run
// (BENCH_ADVISE_DURATION seconds, default 3, after a 2 s warm-up), the settings tried in turn BENCH_ADVISE_ROUNDS
// times (default 2: interleaved rounds, so that a machine growing busier mid-way does not favour the first ones):
// - DATABASE_POOL_MAX 5/10/20/40 on the home and notifications timelines (the database-bound hot path);
// - VERIFY_THREADS_MAX 1/2/4 and UV_THREADPOOL_SIZE 1/2/4 on the signature path: signed POSTs to /inbox of an
//   activity type the inbox acknowledges without storing, so each request is a key lookup and one RSA verification
//   (node:crypto's callback form runs those on libuv's pool, hence the second knob);
// - DELIVERY_CONCURRENCY 2/4/8/16/32: 4 loopback inboxes answering after BENCH_ADVISE_INBOX_MS (default 50, a
//   remote server's latency), 200 queued deliveries each, timed until all have arrived.
// The recommendation is the smallest setting within 5 % of the best throughput (a larger pool costs memory and
// PostgreSQL backends for nothing).
import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { pino } from 'pino';
import { sha256Digest, signatureHeader, signingString } from '../src/federation/http-signatures.js';
import { Database } from '../src/store/db.js';
import os from 'node:os';
import { cpuSeconds } from './cpu.js';
import type { BenchDatabase } from './database.js';
import { postmasterPid } from './pg-cpu.js';
import { startStoa, type StoaProcess } from './processes.js';
import { checkTimeline, FIGURE_HEAD, figureCells, fmt, measureTimeline, textTable, type TimelineFigures } from './timeline-measure.js';
import { seedTimelines } from './timeline-seeds.js';
import type { Target, WrkSettings } from './wrk.js';

// Once, twice, four and eight times the cores: the default is twice (config/schema.ts defaultPoolMax).
const POOLS = [1, 2, 4, 8].map((k) => k * Math.max(1, os.availableParallelism()));
const VERIFY_THREADS = [1, 2, 4];
const UV_THREADS = [1, 2, 4];
const DELIVERY = [2, 4, 8, 16, 32];
const INBOXES = 4;
const PER_INBOX = 200;
const WITHIN = 0.95;

interface Trial {
  readonly setting: number;
  readonly label: string;
  readonly round: number;
  readonly figures: TimelineFigures;
}

/**
 * The largest difference between rounds of one setting and scenario, relative to their mean: settings whose
 * figures differ by less than this are not told apart (on a busy machine it exceeds every difference measured).
 */
function spread(trials: readonly { setting: number; label: string; perSec: number }[]): number {
  const groups = new Map<string, number[]>();
  for (const t of trials) groups.set(`${t.setting}/${t.label}`, [...(groups.get(`${t.setting}/${t.label}`) ?? []), t.perSec]);
  let worst = 0;
  for (const xs of groups.values()) {
    const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
    if (xs.length > 1 && mean > 0) worst = Math.max(worst, (Math.max(...xs) - Math.min(...xs)) / mean);
  }
  return worst;
}

const spreadLine = (x: number) => `round-to-round spread up to ${(x * 100).toFixed(0)} %: settings closer than that are not told apart on this run`;

/** The smallest setting whose mean req/s over its trials is within 5 % of the best. */
function pick(trials: readonly Trial[]): number {
  // Each label's req/s relative to that label's best, averaged per setting: no scenario outweighs another.
  const best = new Map<string, number>();
  for (const t of trials) best.set(t.label, Math.max(best.get(t.label) ?? 0, t.figures.requestsPerSec));
  const score = new Map<number, number[]>();
  for (const t of trials) score.set(t.setting, [...(score.get(t.setting) ?? []), t.figures.requestsPerSec / best.get(t.label)!]);
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const settings = [...score.keys()].sort((a, b) => a - b);
  const top = Math.max(...settings.map((s) => mean(score.get(s)!)));
  return settings.find((s) => mean(score.get(s)!) >= top * WITHIN)!;
}

function trialTable(knob: string, trials: readonly Trial[]): string {
  return textTable(
    [knob, 'scenario', 'round', ...FIGURE_HEAD],
    [...trials]
      .sort((a, b) => a.setting - b.setting || a.label.localeCompare(b.label) || a.round - b.round)
      .map((t) => [String(t.setting), t.label, String(t.round), ...figureCells(t.figures)]),
    2,
  );
}

interface Ctx {
  readonly wrk: string;
  readonly bench: BenchDatabase;
  readonly s: WrkSettings;
  readonly postmaster: number | null;
}

async function withStoa<T>(ctx: Ctx, env: Record<string, string>, fn: (stoa: StoaProcess) => Promise<T>): Promise<T> {
  const stoa = await startStoa({
    DATABASE_URL: ctx.bench.url,
    STOA_DATA_DIR: path.join(ctx.bench.dataDir, 'stoa'),
    LOG_LEVEL: process.env['BENCH_LOG_LEVEL'] || 'info',
    ...env,
  });
  try {
    return await fn(stoa);
  } finally {
    await stoa.stop();
  }
}

/** A remote actor whose key is already stored (no fetch), and a signed POST /inbox of a `View` for a given host. */
async function seedSigner(db: Database): Promise<(host: string) => Target> {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const actor = 'https://bench-signer.example/actor';
  const keyId = `${actor}#main-key`;
  await db.exec(
    `INSERT INTO accounts (username, domain, uri, inbox_url, public_key_id, public_key_pem)
     VALUES ('signer', 'bench-signer.example', $1, $1 || '/inbox', $2, $3)
     ON CONFLICT (uri) WHERE uri IS NOT NULL DO UPDATE SET public_key_id = $2, public_key_pem = $3`,
    [actor, keyId, publicKey.export({ type: 'spki', format: 'pem' }).toString()],
  );
  const body = JSON.stringify({
    '@context': 'https://www.w3.org/ns/activitystreams',
    id: 'https://bench-signer.example/views/1',
    type: 'View',
    actor,
    object: 'https://bench-signer.example/notes/1',
  });
  return (host) => {
    const headers: Record<string, string> = {
      host,
      date: new Date().toUTCString(),
      digest: sha256Digest(body),
      'content-type': 'application/activity+json',
    };
    const signed = ['(request-target)', 'host', 'date', 'digest'];
    const text = signingString({ headers: signed }, { method: 'POST', target: '/inbox', headers });
    const signature = sign('sha256', Buffer.from(text), privateKey).toString('base64');
    return {
      path: '/inbox',
      method: 'POST',
      body,
      headers: {
        Host: host,
        Date: headers['date']!,
        Digest: headers['digest']!,
        'Content-Type': headers['content-type']!,
        Signature: signatureHeader(keyId, signed, signature),
      },
    };
  };
}

interface DeliveryTrial {
  readonly setting: number;
  readonly perSec: number;
  readonly nodeUsPerDelivery: number | null;
  readonly seconds: number;
}

/** Loopback inboxes that answer 202 after `delayMs`; `received` counts the POSTs. */
async function startInboxes(delayMs: number): Promise<{ urls: string[]; received: () => number; close: () => Promise<void> }> {
  let received = 0;
  const servers: http.Server[] = [];
  for (let i = 0; i < INBOXES; i++) {
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () =>
        setTimeout(() => {
          received++;
          res.writeHead(202).end();
        }, delayMs),
      );
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    servers.push(server);
  }
  return {
    urls: servers.map((s) => `http://127.0.0.1:${(s.address() as AddressInfo).port}/inbox`),
    received: () => received,
    close: () => Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r())))).then(() => undefined),
  };
}

async function deliveryTrial(ctx: Ctx, db: Database, c: number, delayMs: number): Promise<DeliveryTrial> {
  const inboxes = await startInboxes(delayMs);
  try {
    return await withStoa(ctx, { DELIVERY_CONCURRENCY: String(c), FEDERATION_ALLOW_PRIVATE: 'loopback' }, async (stoa) => {
      const signer = (await db.one<{ account_id: string }>('SELECT account_id FROM users ORDER BY id LIMIT 1'))!.account_id;
      const total = INBOXES * PER_INBOX;
      const cpu0 = cpuSeconds(stoa.pid);
      const t0 = performance.now();
      // Queued as DeliveryStore.enqueue does it: rows, then a notification per host that wakes its actor.
      await db.exec(
        `WITH q AS (
           INSERT INTO deliveries (activity_id, inbox_url, host, signer_id, body, give_up_at)
           SELECT 'https://bench.example/activities/' || $4::text || '/' || k, u, substring(u FROM '^http://([^/]+)'), $1,
                  '{"type":"Create","id":"https://bench.example/a/' || k || '"}', now() + interval '1 hour'
           FROM unnest($2::text[]) u, generate_series(1, $3::int) k RETURNING host)
         SELECT pg_notify('stoa_work', 'delivery:' || h) FROM (SELECT DISTINCT host AS h FROM q) x`,
        [signer, inboxes.urls, PER_INBOX, createHash('sha1').update(`${c}-${t0}`).digest('hex')],
      );
      const deadline = t0 + 120_000;
      while (inboxes.received() < total && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      const seconds = (performance.now() - t0) / 1000;
      const cpu1 = cpuSeconds(stoa.pid);
      const got = inboxes.received();
      if (got < total) process.stderr.write(`  warning: only ${got} of ${total} deliveries arrived within 120 s\n`);
      return { setting: c, perSec: got / seconds, seconds, nodeUsPerDelivery: cpu0 === null || cpu1 === null || !got ? null : ((cpu1 - cpu0) / got) * 1e6 };
    });
  } finally {
    await inboxes.close();
    await db.exec('DELETE FROM deliveries');
  }
}

export async function advise(wrk: string, bench: BenchDatabase): Promise<string> {
  const durationSec = Number(process.env['BENCH_ADVISE_DURATION'] ?? 3);
  const delayMs = Number(process.env['BENCH_ADVISE_INBOX_MS'] ?? 50);
  const rounds = Number(process.env['BENCH_ADVISE_ROUNDS'] ?? 2);
  for (const [name, v] of [
    ['BENCH_ADVISE_DURATION', durationSec],
    ['BENCH_ADVISE_INBOX_MS', delayMs + 1],
    ['BENCH_ADVISE_ROUNDS', rounds],
  ] as const) {
    if (!Number.isInteger(v) || v < 1) throw new Error(`${name} must be a whole number ≥ 1 (0 for BENCH_ADVISE_INBOX_MS)`);
  }
  const ctx: Ctx = { wrk, bench, s: { threads: 1, connections: 50, durationSec }, postmaster: await postmasterPid(bench.url) };
  const db = new Database(bench.url, 1, pino({ level: 'silent' }));
  const out: string[] = [];
  try {
    // The first Stoa migrates the fresh database and creates the owner the seeds build on.
    const seed = await withStoa(ctx, {}, () => seedTimelines(bench.url));
    const auth = { Authorization: `Bearer ${seed.token}` };
    const timelines: [string, Target][] = [
      ['home', { path: '/api/v1/timelines/home', headers: auth }],
      ['notifications', { path: '/api/v1/notifications', headers: auth }],
    ];

    const pools: Trial[] = [];
    for (let round = 1; round <= rounds; round++) {
      for (const p of POOLS) {
        process.stderr.write(`advise: DATABASE_POOL_MAX=${p} (round ${round})\n`);
        await withStoa(ctx, { DATABASE_POOL_MAX: String(p) }, async (stoa) => {
          for (const [label, t] of timelines) {
            await checkTimeline(stoa.url, t);
            pools.push({ setting: p, label, round, figures: await measureTimeline(wrk, stoa, t, ctx.s, ctx.postmaster) });
          }
        });
      }
    }
    const pool = pick(pools);
    const perSec = (ts: readonly Trial[]) => ts.map((t) => ({ setting: t.setting, label: t.label, perSec: t.figures.requestsPerSec }));
    out.push(trialTable('DATABASE_POOL_MAX', pools), spreadLine(spread(perSec(pools))), '');

    const signed = await seedSigner(db);
    const signature = async (env: Record<string, string>, setting: number, label: string, round: number): Promise<Trial> =>
      withStoa(ctx, { DATABASE_POOL_MAX: String(pool), ...env }, async (stoa) => {
        const t = signed(new URL(stoa.url).host);
        const res = await fetch(stoa.url + t.path, { method: 'POST', headers: t.headers, body: t.body });
        if (res.status !== 202) throw new Error(`signed POST /inbox answered ${res.status}: ${await res.text()}`);
        return { setting, label, round, figures: await measureTimeline(wrk, stoa, t, ctx.s, ctx.postmaster) };
      });
    const verifyTrials: Trial[] = [];
    for (let round = 1; round <= rounds; round++) {
      for (const v of VERIFY_THREADS) {
        process.stderr.write(`advise: VERIFY_THREADS_MAX=${v} (round ${round})\n`);
        verifyTrials.push(await signature({ VERIFY_THREADS_MAX: String(v), VERIFY_THREADS_MIN: '1' }, v, 'signed POST /inbox', round));
      }
    }
    const verify = pick(verifyTrials);
    out.push(trialTable('VERIFY_THREADS_MAX', verifyTrials), spreadLine(spread(perSec(verifyTrials))), '');
    const uvTrials: Trial[] = [];
    for (let round = 1; round <= rounds; round++) {
      for (const u of UV_THREADS) {
        process.stderr.write(`advise: UV_THREADPOOL_SIZE=${u} (round ${round})\n`);
        uvTrials.push(
          await signature({ VERIFY_THREADS_MAX: String(verify), VERIFY_THREADS_MIN: '1', UV_THREADPOOL_SIZE: String(u) }, u, 'signed POST /inbox', round),
        );
      }
    }
    const uv = pick(uvTrials);
    out.push(trialTable('UV_THREADPOOL_SIZE', uvTrials), spreadLine(spread(perSec(uvTrials))), '');

    const deliveries: (DeliveryTrial & { round: number })[] = [];
    for (let round = 1; round <= rounds; round++) {
      for (const c of DELIVERY) {
        process.stderr.write(`advise: DELIVERY_CONCURRENCY=${c} (round ${round})\n`);
        deliveries.push({ ...(await deliveryTrial(ctx, db, c, delayMs)), round });
      }
    }
    const meanPerSec = (c: number) => {
      const xs = deliveries.filter((d) => d.setting === c).map((d) => d.perSec);
      return xs.reduce((a, b) => a + b, 0) / xs.length;
    };
    const topDelivery = Math.max(...DELIVERY.map(meanPerSec));
    const delivery = DELIVERY.find((c) => meanPerSec(c) >= topDelivery * WITHIN)!;
    const others = [...pools, ...verifyTrials, ...uvTrials].map((t) => t.figures.otherCpuPercent ?? 0).sort((a, b) => a - b);
    const busy = others[Math.floor(others.length / 2)]!;
    out.push(
      `Deliveries: ${INBOXES} loopback inboxes answering after ${delayMs} ms, ${PER_INBOX} each`,
      textTable(
        ['DELIVERY_CONCURRENCY', 'round', 'deliveries/s', 'seconds', 'Node µs/delivery'],
        [...deliveries]
          .sort((a, b) => a.setting - b.setting || a.round - b.round)
          .map((d) => [String(d.setting), String(d.round), fmt.int(d.perSec), d.seconds.toFixed(1), fmt.us(d.nodeUsPerDelivery)]),
        0,
      ),
      spreadLine(spread(deliveries.map((d) => ({ setting: d.setting, label: 'deliveries', perSec: d.perSec })))),
      '',
      ...(busy > 20
        ? [
            `WARNING: the rest of the machine used a median ${busy.toFixed(0)} % of a core during the trials (not Stoa, wrk or PostgreSQL):`,
            'the figures are disturbed and the recommendation below is not to be trusted; run again on a quiet machine.',
          ]
        : []),
      'Recommended on this machine (smallest setting within 5 % of the best mean throughput):',
      `  DATABASE_POOL_MAX=${pool}`,
      `  VERIFY_THREADS_MAX=${verify}`,
      `  UV_THREADPOOL_SIZE=${uv}`,
      `  DELIVERY_CONCURRENCY=${delivery}`,
    );
    return out.join('\n');
  } finally {
    await db.close();
  }
}
