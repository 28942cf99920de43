// The cost of cluster-wide throttles on the sign-in path (issue 20): a sign-in counts two attempts (its address and
// its login). Measured in one run: the per-node in-memory counters they replaced (a Map, as src/http/throttle.ts was)
// against the shared counters in PostgreSQL (one upsert each), one sign-in at a time and 16 at once, with the
// password check every sign-in runs anyway (scrypt) for scale. Run alone with `node dist/bench/cluster-throttle.js`
// (embedded PostgreSQL, or DATABASE_URL).
import { pino } from 'pino';
import { hashPassword, verifyPassword } from '../src/auth/password.js';
import { Throttle } from '../src/http/throttle.js';
import { Database } from '../src/store/db.js';
import { migrate } from '../src/store/migrate.js';
import { ThrottleCounterStore } from '../src/store/throttle-counters.js';
import { openBenchDatabase } from './database.js';

const SIGN_INS = 5_000;
const KEYS = 1_000;

/** The per-node counter as it was before: a fixed window per key in a Map. */
class MemoryThrottle {
  private readonly windows = new Map<string, { start: number; count: number }>();
  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
  ) {}
  hit(key: string): boolean {
    const t = Date.now();
    let w = this.windows.get(key);
    if (!w || t - w.start >= this.windowMs) this.windows.set(key, (w = { start: t, count: 0 }));
    return ++w.count <= this.limit;
  }
}

async function perSignIn(n: number, concurrency: number, signIn: (i: number) => Promise<unknown>): Promise<{ usEach: number; perSec: number }> {
  let next = 0;
  const t = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) await signIn(next++);
    }),
  );
  const ms = performance.now() - t;
  return { usEach: (ms * 1000) / n, perSec: Math.round((n / ms) * 1000) };
}

async function main(): Promise<void> {
  const bench = await openBenchDatabase();
  const log = pino({ level: 'silent' });
  const db = new Database(bench.url, 16, log);
  try {
    await migrate(db, log);
    const memory = new MemoryThrottle(10, 300_000);
    const shared = new Throttle(new ThrottleCounterStore(db), 'signin', 10, 300_000);
    const before = await perSignIn(SIGN_INS, 1, async (i) => memory.hit(`ip:${i % KEYS}`) && memory.hit(`login:${i % KEYS}`));
    const after1 = await perSignIn(SIGN_INS, 1, async (i) => (await shared.hit(`ip:${i % KEYS}`)).allowed && shared.hit(`login:${i % KEYS}`));
    const after16 = await perSignIn(SIGN_INS, 16, async (i) => (await shared.hit(`ip:${i % KEYS}`)).allowed && shared.hit(`login:${i % KEYS}`));
    const stored = await hashPassword('correct horse battery staple');
    const scrypt = await perSignIn(50, 1, () => verifyPassword('wrong password', stored));
    const rows = [
      ['in-memory (per node), 1 at a time', before],
      ['PostgreSQL (cluster), 1 at a time', after1],
      ['PostgreSQL (cluster), 16 at once', after16],
      ['password check (scrypt), 1 at a time', scrypt],
    ] as const;
    process.stdout.write(`Sign-in throttle: two attempts counted per sign-in, ${SIGN_INS} sign-ins over ${KEYS} keys\n`);
    for (const [name, r] of rows) process.stdout.write(`${name.padEnd(40)} ${r.usEach.toFixed(1).padStart(9)} µs/sign-in ${String(r.perSec).padStart(8)} /s\n`);
  } finally {
    await db.close();
    await bench.stop();
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
