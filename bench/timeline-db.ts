// A seeded timelines database kept running for EXPLAIN (issue 19): embedded PostgreSQL (or DATABASE_URL), Stoa
// started once to migrate it, the seeds of bench/timeline-seeds.ts, then Stoa left running until SIGTERM or ^C.
// Prints the database URL, Stoa's URL, the member's token and the seed ids. `node dist/bench/timeline-db.js`.
import path from 'node:path';
import { openBenchDatabase } from './database.js';
import { startStoa } from './processes.js';
import { seedTimelines } from './timeline-seeds.js';

async function main(): Promise<void> {
  const db = await openBenchDatabase();
  const stoa = await startStoa({ DATABASE_URL: db.url, STOA_DATA_DIR: path.join(db.dataDir, 'stoa'), LOG_LEVEL: 'warn' });
  const seed = await seedTimelines(db.url);
  process.stdout.write(`${JSON.stringify({ databaseUrl: db.url, stoaUrl: stoa.url, stoaPid: stoa.pid, ...seed })}\n`);
  const stop = () => void Promise.allSettled([stoa.stop()]).then(() => db.stop().finally(() => process.exit(0)));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((e: unknown) => {
  process.stderr.write(`timeline-db failed: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
