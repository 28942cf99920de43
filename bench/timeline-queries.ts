// Round trips and time per page of every timeline (issue 19's query side): the real application in this process
// against a seeded database, each page fetched over loopback HTTP, its handler's statements counted with
// Database.tally. Run alone: `node dist/bench/timeline-queries.js` (embedded PostgreSQL, or DATABASE_URL).
// BENCH_TQ_FOLLOWING (default 1,000 followed accounts, 20 statuses each, as many unfollowed) and BENCH_TQ_RUNS.
import fs from 'node:fs/promises';
import { pino } from 'pino';
import { loadConfig } from '../config/schema.js';
import { startApp } from '../src/app.js';
import type { Principal, Route } from '../src/http/types.js';
import type { Request } from '../src/http/request.js';
import type { Database } from '../src/store/db.js';
import { openBenchDatabase } from './database.js';
import { seedHomeTimeline } from './seed.js';
import { freePort } from './machine.js';

const FOLLOWING = Number(process.env['BENCH_TQ_FOLLOWING'] ?? 1_000);
const RUNS = Number(process.env['BENCH_TQ_RUNS'] ?? 200);

/** Boosts, favourites, bookmarks, mentions, replies, a thread, a tag, a list, polls, media, reactions, notifications. */
async function enrich(app: Awaited<ReturnType<typeof startApp>>, me: string): Promise<{ listId: string; threadId: string }> {
  const db = app.db;
  const done = await db.one<{ id: string }>("SELECT id::text FROM lists WHERE title = 'bench'");
  if (done) {
    const t = (await db.one<{ id: string }>("SELECT id::text FROM statuses WHERE uri LIKE '%/bench-thread-root'"))!;
    return { listId: done.id, threadId: t.id };
  }
  await db.tx(async (q) => {
    // A boost by every tenth followed account of someone's status, a day spread.
    await q.query(`INSERT INTO statuses (id, account_id, uri, content, visibility, local, created_at, reblog_of_id)
      SELECT timestamp_id(t), a.id, a.uri || '/boosts/' || o.id, '', 0, false, t, o.id
      FROM (SELECT id, uri, row_number() OVER (ORDER BY id) AS n FROM accounts WHERE domain = 'bench-followed.example') a
      CROSS JOIN LATERAL (SELECT s.id, now() - random() * interval '1 day' AS t FROM statuses s JOIN accounts x ON x.id = s.account_id
        WHERE x.domain = 'bench-other.example' AND s.reblog_of_id IS NULL ORDER BY s.id DESC OFFSET a.n LIMIT 1) o
      WHERE a.n % 10 = 0`);
    await q.query(`INSERT INTO favourites (account_id, status_id) SELECT $1, id FROM statuses WHERE id % 7 = 0 AND reblog_of_id IS NULL`, [me]);
    await q.query(`INSERT INTO bookmarks (account_id, status_id) SELECT $1, id FROM statuses WHERE id % 11 = 0 AND reblog_of_id IS NULL`, [me]);
    await q.query(
      'INSERT INTO favourites (account_id, status_id) SELECT a.id, s.id FROM statuses s, (SELECT id FROM accounts ORDER BY id LIMIT 5) a WHERE s.id % 5 = 0 ON CONFLICT DO NOTHING',
    );
    await q.query('INSERT INTO status_mentions (status_id, account_id) SELECT id, $1 FROM statuses WHERE id % 13 = 0 AND reblog_of_id IS NULL', [me]);
    await q.query('UPDATE statuses SET local = true WHERE id % 29 = 0');
    await q.query(`INSERT INTO tags (name, key) VALUES ('bench', 'bench')`);
    await q.query(
      `INSERT INTO status_tags (status_id, tag_id) SELECT s.id, t.id FROM statuses s, tags t WHERE t.key = 'bench' AND s.id % 17 = 0 AND s.reblog_of_id IS NULL`,
    );
    await q.query(`INSERT INTO polls (status_id, account_id, options, expires_at)
      SELECT id, account_id, ARRAY['yes', 'no'], now() + interval '1 day' FROM statuses WHERE id % 19 = 0 AND reblog_of_id IS NULL`);
    await q.query(`INSERT INTO media_attachments (account_id, status_id, type, content_type, remote_url, description)
      SELECT account_id, id, 'image', 'image/png', uri || '/m.png', 'a picture' FROM statuses WHERE id % 3 = 0 AND reblog_of_id IS NULL`);
    await q.query(`INSERT INTO status_reactions (account_id, status_id, emoji)
      SELECT a.id, s.id, '👍' FROM statuses s, (SELECT id FROM accounts ORDER BY id LIMIT 3) a WHERE s.id % 23 = 0`);
    await q.query(
      `INSERT INTO notifications (account_id, from_account_id, type, status_id, group_key)
      SELECT $1, account_id, 'mention', id, 'ungrouped-' || id FROM statuses WHERE id % 13 = 0 AND reblog_of_id IS NULL`,
      [me],
    );
    await q.query(
      `INSERT INTO notifications (account_id, from_account_id, type, status_id, group_key)
      SELECT DISTINCT ON (f.status_id, a.id) $1, a.id, 'favourite', f.status_id, 'favourite-' || f.status_id || '-1'
      FROM favourites f JOIN statuses s ON s.id = f.status_id AND s.account_id = $1, (SELECT id FROM accounts WHERE domain = 'bench-followed.example' ORDER BY id LIMIT 3) a`,
      [me],
    );
    const list = (await q.query<{ id: string }>(`INSERT INTO lists (account_id, title) VALUES ($1, 'bench') RETURNING id::text`, [me])).rows[0]!;
    await q.query(
      `INSERT INTO list_accounts (list_id, account_id) SELECT $1, target_account_id FROM follows WHERE account_id = $2 ORDER BY target_account_id LIMIT 100`,
      [list.id, me],
    );
    // A thread: a root by a followed account, and 30 replies under it, some nested.
    await q.query(`INSERT INTO statuses (account_id, uri, content, visibility, local)
      SELECT id, uri || '/bench-thread-root', '<p>root</p>', 0, false FROM accounts WHERE domain = 'bench-followed.example' ORDER BY id LIMIT 1`);
    await q.query(`INSERT INTO statuses (id, account_id, uri, content, visibility, local, in_reply_to_id, in_reply_to_account_id)
      SELECT timestamp_id(now() + i * interval '1 ms'), a.id, a.uri || '/reply/' || i, '<p>reply</p>', 0, false, r.id, r.account_id
      FROM (SELECT id, account_id FROM statuses WHERE uri LIKE '%/bench-thread-root') r,
           generate_series(1, 30) i CROSS JOIN LATERAL (SELECT id, uri FROM accounts WHERE domain = 'bench-followed.example' ORDER BY id OFFSET i LIMIT 1) a`);
  });
  await db.exec('ANALYZE');
  return enrich(app, me);
}

/** CPU seconds (user + system) of every process under the PostgreSQL postmaster: what the pages cost the database. */
async function postgresCpu(postmaster: number): Promise<number> {
  const hz = 100; // USER_HZ on Linux
  let ticks = 0;
  for (const pid of await fs.readdir('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const stat = await fs.readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // After the name: state, ppid, ..., utime (14th field overall), stime (15th).
    if (Number(pid) === postmaster || Number(f[1]) === postmaster) ticks += Number(f[11]) + Number(f[12]);
  }
  return ticks / hz;
}

async function postmasterOf(db: Database): Promise<number> {
  const { pid } = (await db.one<{ pid: number }>('SELECT pg_backend_pid() AS pid'))!;
  const stat = await fs.readFile(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

function percentile(samples: number[], p: number): number {
  const s = [...samples].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * p))]!;
}

async function main(): Promise<void> {
  const bench = await openBenchDatabase();
  const port = await freePort();
  const config = loadConfig({
    DATABASE_URL: bench.url,
    STOA_DATA_DIR: bench.dataDir,
    HOST: '127.0.0.1',
    PORT: String(port),
    BASE_URL: `http://localhost:${port}`,
    LOG_LEVEL: 'silent',
  });
  const app = await startApp(config, pino({ level: 'silent' }));
  try {
    const token = await seedHomeTimeline(bench.url, FOLLOWING, 20);
    const me = (await app.db.one<{ account_id: string }>('SELECT account_id::text FROM users ORDER BY id LIMIT 1'))!.account_id;
    const { listId, threadId } = await enrich(app, me);
    const author = (await app.db.one<{ id: string }>("SELECT id::text FROM accounts WHERE domain = 'bench-followed.example' ORDER BY id LIMIT 1"))!.id;
    // Each handler's statements, counted in its own async context (background actors are not).
    let last = 0;
    for (const r of app.routes as Route[]) {
      const h = r.handler as (req: Request, who: Principal | null) => unknown;
      (r as { handler: unknown }).handler = async (req: Request, who: Principal | null) => {
        const { value, queries, statements } = await app.db.tally(async () => h(req, who));
        last = queries;
        if (process.env['BENCH_TQ_SHOW']) for (const st of statements) process.stderr.write(`${req.path}: ${st.replace(/\s+/g, ' ').slice(0, 140)}\n`);
        return value;
      };
    }
    const pages: [string, string][] = [
      ['home', '/api/v1/timelines/home'],
      ['public', '/api/v1/timelines/public'],
      ['local', '/api/v1/timelines/public?local=true'],
      ['tag', '/api/v1/timelines/tag/bench'],
      ['list', `/api/v1/timelines/list/${listId}`],
      ['account', `/api/v1/accounts/${author}/statuses`],
      ['notifications', '/api/v1/notifications'],
      ['grouped', '/api/v2/notifications'],
      ['context', `/api/v1/statuses/${threadId}/context`],
    ];
    const postmaster = await postmasterOf(app.db);
    // Wall time is at the mercy of whatever else runs on the machine; CPU time per page much less so.
    const out: string[] = [
      '| page | items | queries | p50 ms | p99 ms | mean ms | Node CPU µs/page | PostgreSQL CPU µs/page |',
      '|---|---|---|---|---|---|---|---|',
    ];
    for (const [name, path] of pages) {
      const get = async () => {
        const res = await fetch(app.url + path, { headers: { Authorization: `Bearer ${token}` } });
        if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
        return (await res.json()) as unknown;
      };
      for (let i = 0; i < 20; i++) await get();
      const times: number[] = [];
      const cpu0 = process.cpuUsage();
      const pg0 = await postgresCpu(postmaster);
      let body: unknown;
      for (let i = 0; i < RUNS; i++) {
        const t = performance.now();
        body = await get();
        times.push(performance.now() - t);
      }
      const items = Array.isArray(body)
        ? body.length
        : (
            (body as { descendants?: unknown[]; notification_groups?: unknown[] }).descendants ??
            (body as { notification_groups: unknown[] }).notification_groups
          ).length;
      const pgCpu = ((await postgresCpu(postmaster)) - pg0) * 1e6;
      const cpu = process.cpuUsage(cpu0);
      const mean = times.reduce((a, b) => a + b, 0) / times.length;
      const node = (cpu.user + cpu.system) / RUNS;
      out.push(
        `| ${name} | ${items} | ${last} | ${percentile(times, 0.5).toFixed(2)} | ${percentile(times, 0.99).toFixed(2)} | ${mean.toFixed(2)} | ${node.toFixed(0)} | ${(pgCpu / RUNS).toFixed(0)} |`,
      );
    }
    process.stdout.write(`${out.join('\n')}\n`);
  } finally {
    await app.stop();
    await bench.stop();
  }
}

await main();
