// `npm run bench`: starts the bare uWS floor and the real Stoa app (each in its own process, Stoa against
// DATABASE_URL or an embedded PostgreSQL), runs every scenario in bench/scenarios.ts against both with wrk,
// and prints req/s, p99 and the Stoa/bare ratio measured in the same run. Everything is stopped at the end,
// also on error, ^C or SIGTERM (after kill -9 of this process the servers exit, but an embedded PostgreSQL stays).
// Then issue 19's timelines against the same Stoa (bench/timelines.ts, each a ratio to verify_credentials in the
// same run) and the home page's scale curve (bench/scale.ts, its own database), before the off-line sections.
// Flags: --timelines runs only the timelines and the scale curve; --only=home,public (with --timelines) only those
// timelines (and verify_credentials, the ratio's base); --advise only tries pool sizes and prints the settings it
// recommends (bench/advise.ts); --history-origins only remote history's first pages over 300 origins, 10 % slow
// (bench/history-origins.ts). With DATABASE_URL set, the seeds are reused (bench/timeline-db.ts keeps a seeded
// database running for that and for EXPLAIN).
// Environment: BENCH_DURATION (seconds, default 10), BENCH_LOG_LEVEL (Stoa's LOG_LEVEL, default info),
// BENCH_SCALE (full, small or off; see bench/scale.ts), BENCH_TIMELINES (the same as --only=), BENCH_ADVISE_DURATION, BENCH_ADVISE_INBOX_MS (see
// bench/advise.ts), DATABASE_URL (use this PostgreSQL instead of an embedded one).
// Issue 37's link aggregator (bench/lemmy-posts.ts): post/list sorted Hot over 100,000 posts in 200 communities, a
// ratio to verify_credentials in the same run, after the timelines; --lemmy runs only that.
// Issue 38's media figures (bench/media.ts): the image pool's images a second over one thread's, and Stoa's event-loop
// lag p99 while 20 uploads and 2 transcodes run; after the link aggregator, against its own Stoa; --media runs only that.
// Issue 39's start (bench/warm-start.ts): the real `npm start` to its first answer, first and warm; --start runs only that.
// Issue 39's posting latency at 10 to 100,000 local followers (bench/posting-by-followers.ts), with the off-line
// sections, its own database and Stoa; --posting runs only that.
// Last, bench/cluster.ts: verify_credentials and the home timeline on 1 node, then on 2 nodes behind nginx; and
// bench/supervised.ts: the same two under the supervisor with 1, then 2 server processes sharing the port.
import { rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openBenchDatabase, type BenchDatabase } from './database.js';
import { measure, WARMUP_SEC } from './measure.js';
import { advise } from './advise.js';
import { clusterTable, clusterTools, measureCluster } from './cluster.js';
import { postmasterPid } from './pg-cpu.js';
import { startBare, startStoa, type ServerProcess, type StoaProcess } from './processes.js';
import { measureScale, scaleTable } from './scale.js';
import { measureTimelines, timelinesTable } from './timelines.js';
import { measureLemmy } from './lemmy-posts.js';
import { table, type Row } from './report.js';
import { scenarios, type Scenario } from './scenarios.js';
import { measureHistory, realHistoryTable } from './history.js';
import { fairnessTable, measureOriginFairness } from './history-origins.js';
import { measurePrune, pruneTable } from './history-prune.js';
import { measureHistoryScheduling, schedulingTable } from './history-scheduling.js';
import { homeTable, measureHomeTimeline } from './home-timeline.js';
import { identityTable, measureIdentity } from './identity.js';
import { measureSignatures, signatureTable } from './signatures.js';
import { measureSupervised, supervisedTable } from './supervised.js';
import { measureStreaming, streamingTable } from './streaming.js';
import { findWrk, killRunningWrk, type Target, type WrkSettings } from './wrk.js';
import { loadavg } from './machine.js';
import { measureMedia, mediaTable } from './media.js';
import { measureStart, startTable } from './warm-start.js';
import { measurePostingByFollowers, postingTable } from './posting-by-followers.js';

let interrupted = false;

function settingsFromEnv(): WrkSettings {
  const raw = process.env['BENCH_DURATION'] ?? '10';
  const durationSec = Number(raw);
  if (!Number.isInteger(durationSec) || durationSec < 1) throw new Error(`BENCH_DURATION must be a whole number of seconds ≥ 1 (got ${JSON.stringify(raw)})`);
  return { threads: 1, connections: 50, durationSec };
}

/** One plain request before the load, so that a scenario that hits an error path fails loudly instead of measuring it. */
async function checkTarget(who: string, baseUrl: string, t: Target, expect: number): Promise<void> {
  const res = await fetch(baseUrl + t.path, { method: t.method ?? 'GET', headers: t.headers, body: t.body });
  await res.arrayBuffer();
  if (res.status !== expect) throw new Error(`${who} ${t.method ?? 'GET'} ${t.path} answered ${res.status}, expected ${expect}`);
}

async function runScenario(wrk: string, sc: Scenario, bare: ServerProcess, stoa: ServerProcess, db: BenchDatabase, s: WrkSettings): Promise<Row> {
  process.stderr.write(`scenario ${sc.name}\n`);
  const stoaTarget = await sc.stoa({ stoaUrl: stoa.url, databaseUrl: db.url });
  await checkTarget('bare', bare.url, sc.bare, 200);
  await checkTarget('stoa', stoa.url, stoaTarget, sc.expectStatus ?? 200);
  return { scenario: sc.name, bare: await measure(wrk, bare, sc.bare, s), stoa: await measure(wrk, stoa, stoaTarget, s) };
}

async function timelines(wrk: string, stoa: StoaProcess, db: BenchDatabase, s: WrkSettings, only?: ReadonlySet<string>): Promise<void> {
  const postmaster = await postmasterPid(db.url);
  if (postmaster === null) process.stderr.write('bench: PostgreSQL runs out of sight of /proc: its CPU is not reported\n');
  const rows = await measureTimelines(wrk, stoa, db.url, postmaster, s, only);
  process.stdout.write(`\nTimelines (issue 19), load average ${loadavg()}\n${timelinesTable(rows)}\n`);
}

async function lemmy(wrk: string, stoa: StoaProcess, db: BenchDatabase, s: WrkSettings): Promise<void> {
  const { rows, seed } = await measureLemmy(wrk, stoa, db.url, await postmasterPid(db.url), s);
  const refresh = seed.refresh
    ? `; one refreshRanks over them: ${seed.refresh.posts.toLocaleString('en-US')} posts in ${(seed.refresh.ms / 1000).toFixed(2)} s`
    : '';
  process.stdout.write(`\nLink aggregator (issue 37): 100,000 posts in 200 communities${refresh}, load average ${loadavg()}\n${timelinesTable(rows)}\n`);
}

async function media(db: BenchDatabase): Promise<void> {
  const figures = await measureMedia(db, (line) => process.stderr.write(`${line}\n`));
  process.stdout.write(`\n${mediaTable(figures)}\n`);
}

async function main(): Promise<number> {
  // Remote history across many origins, some slow (issue 34): no wrk, its own database and Stoa.
  if (process.argv.includes('--history-origins')) {
    process.stdout.write(`\n${fairnessTable(await measureOriginFairness())}\n`);
    return 0;
  }
  if (process.argv.includes('--start')) {
    process.stdout.write(`\n${startTable(await measureStart())}\n`);
    return 0;
  }
  // Posting latency by followers (issue 39): no wrk, its own database and Stoa.
  if (process.argv.includes('--posting')) {
    process.stderr.write(`bench: ${os.availableParallelism()} CPUs, Node ${process.version}, load average ${loadavg()}\n`);
    process.stdout.write(`\n${postingTable(await measurePostingByFollowers((line) => process.stderr.write(`${line}\n`)))}\n`);
    return 0;
  }
  const wrk = findWrk();
  if (!wrk) {
    process.stderr.write('bench: `wrk` is not on PATH. Install the load generator first, e.g.\n  apt-get install wrk\n');
    return 2;
  }
  const args = process.argv.slice(2);
  const onlyArg = args.find((a) => a.startsWith('--only='));
  const onlyList = onlyArg ? onlyArg.slice('--only='.length) : process.env['BENCH_TIMELINES'];
  const only = onlyList ? new Set(onlyList.split(',').map((t) => t.trim())) : undefined;
  const flags = new Set(args.filter((a) => a !== onlyArg));
  for (const f of flags)
    if (f !== '--timelines' && f !== '--advise' && f !== '--lemmy' && f !== '--media')
      throw new Error(`unknown flag ${f} (known: --timelines, --only=…, --advise, --lemmy, --media)`);
  const settings = settingsFromEnv();
  const logLevel = process.env['BENCH_LOG_LEVEL'] || 'info';
  const servers: ServerProcess[] = [];
  let db: BenchDatabase | null = null;
  const cleanup = async () => {
    await Promise.allSettled(servers.map((p) => p.stop()));
    await db?.stop();
  };
  // ^C or SIGTERM: stop wrk, the servers and PostgreSQL, then exit; a second ^C kills at once.
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.once(sig, () => {
      interrupted = true;
      killRunningWrk();
      void cleanup().finally(() => {
        process.stderr.write('\nbench: interrupted\n');
        process.exit(130);
      });
    });
  }
  process.once('exit', () => {
    if (db) rmSync(db.dataDir, { recursive: true, force: true });
  });

  try {
    process.stderr.write(
      `bench: wrk -t${settings.threads} -c${settings.connections} -d${settings.durationSec}s --latency (warm-up ${WARMUP_SEC} s); ` +
        `${os.availableParallelism()} CPUs, Node ${process.version}, load average ${loadavg()}\n`,
    );
    const started = performance.now();
    db = await openBenchDatabase();
    process.stderr.write(`bench: database: ${db.description}\n`);
    if (flags.has('--advise')) {
      process.stdout.write(`\n${await advise(wrk, db)}\n`);
      process.stderr.write(`bench: load average at the end ${loadavg()}; ${((performance.now() - started) / 1000).toFixed(0)} s in all\n`);
      return 0;
    }
    if (flags.has('--media')) {
      await media(db);
      process.stderr.write(`bench: load average at the end ${loadavg()}; ${((performance.now() - started) / 1000).toFixed(0)} s in all\n`);
      return 0;
    }
    servers.push(await startBare());
    const stoa = await startStoa({ DATABASE_URL: db.url, STOA_DATA_DIR: path.join(db.dataDir, 'stoa'), LOG_LEVEL: logLevel });
    servers.push(stoa);
    const bare = servers[0]!;
    process.stderr.write(`bench: bare uWS pid ${bare.pid} at ${bare.url}; Stoa pid ${stoa.pid} at ${stoa.url} (LOG_LEVEL=${logLevel}, logs to /dev/null)\n`);

    if (flags.has('--lemmy')) {
      await lemmy(wrk, stoa, db, settings);
      process.stderr.write(`bench: load average at the end ${loadavg()}; ${((performance.now() - started) / 1000).toFixed(0)} s in all\n`);
      return 0;
    }
    if (!flags.has('--timelines')) {
      const rows: Row[] = [];
      for (const sc of scenarios) rows.push(await runScenario(wrk, sc, bare, stoa, db, settings));
      process.stdout.write(`\n${table(rows)}\n`);
    }
    await timelines(wrk, stoa, db, settings, only);
    if (!flags.has('--timelines')) {
      await lemmy(wrk, stoa, db, settings);
      await media(db);
    }
    await cleanup();
    const scale = await measureScale(wrk, settings);
    if (scale) process.stdout.write(`\n${scaleTable(scale)}\n`);
    if (flags.has('--timelines')) {
      process.stderr.write(`bench: load average at the end ${loadavg()}; ${((performance.now() - started) / 1000).toFixed(0)} s in all\n`);
      return 0;
    }
    process.stderr.write('bench: HTTP-signature crypto (servers stopped)\n');
    process.stdout.write(`\n${signatureTable(await measureSignatures())}\n`);
    process.stderr.write('bench: identity-statement verification\n');
    process.stdout.write(`\n${identityTable(await measureIdentity())}\n`);
    process.stderr.write('bench: posting latency by local followers (its own database and Stoa)\n');
    process.stdout.write(`\n${postingTable(await measurePostingByFollowers((line) => process.stderr.write(`${line}\n`)))}\n`);
    process.stderr.write('bench: home timeline query\n');
    process.stdout.write(`\n${homeTable(await measureHomeTimeline())}\n`);
    process.stderr.write('bench: remote history scheduling (2 nodes)\n');
    process.stdout.write(`\n${schedulingTable(await measureHistoryScheduling())}\n`);
    process.stderr.write('bench: remote history through the real runner (loopback origins, 1 then 2 nodes)\n');
    process.stdout.write(`\n${realHistoryTable(await measureHistory())}\n`);
    process.stderr.write('bench: remote history prune\n');
    process.stdout.write(`\n${pruneTable(await measurePrune())}\n`);
    process.stderr.write('bench: npm start, first and warm (bench/warm-start.ts)\n');
    process.stdout.write(`\n${startTable(await measureStart())}\n`);
    process.stderr.write('bench: streaming fan-out against a bare uWS publish to the same sockets (1 then 2 nodes)\n');
    process.stdout.write(`\n${streamingTable(await measureStreaming())}\n`);
    const tools = clusterTools();
    if (typeof tools === 'string') process.stderr.write(`bench: two nodes behind nginx skipped: ${tools}\n`);
    else {
      process.stderr.write('bench: throughput of 1 node and of 2 nodes behind nginx (bench/cluster.ts)\n');
      process.stdout.write(`\n${clusterTable(await measureCluster(tools.wrk, tools.nginx, settings))}\n`);
    }
    process.stderr.write('bench: throughput of 1 and of 2 server processes under the supervisor (bench/supervised.ts)\n');
    process.stdout.write(`\n${supervisedTable(await measureSupervised(wrk, settings))}\n`);
    process.stderr.write(
      `bench: load average at the end ${loadavg()}. CPU % are of one core (${os.availableParallelism()} cores = ${os.availableParallelism() * 100} %); ` +
        `"other" is everything else the machine did meanwhile: more than a few % means the run was disturbed.\n`,
    );
    return 0;
  } finally {
    await cleanup();
  }
}

main().then(
  (code) => {
    // stdout to a pipe is asynchronous: exit only once the tables are written out.
    if (!interrupted) process.stdout.write('', () => process.exit(code));
  },
  (e: unknown) => {
    if (interrupted) return; // the signal handler reports and exits once everything is stopped
    process.stderr.write(`\nbench failed: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  },
);
