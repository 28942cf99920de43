// The real application in its own process, configured as in production: LOG_LEVEL=info through the production
// logger (src/log.ts) onto fd 1, which the parent points at /dev/null, so the per-request log line is paid for.
// Takes DATABASE_URL and STOA_DATA_DIR from the environment; reports { port } to the parent over IPC.
// Every statement sent to PostgreSQL is counted (pg's Client.prototype.query, which the pool and transactions go
// through), so the harness can report round trips per request without pg_stat_statements.
import pg from 'pg';
import { loadConfig } from '../config/schema.js';
import { startApp } from '../src/app.js';
import { nativeUws } from '../src/http/uws.js';
import { createLogger } from '../src/log.js';
import { freePort } from './machine.js';

let statements = 0;
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  statements++;
  return (query as (...a: unknown[]) => unknown).apply(this, args);
} as typeof query;

async function main(): Promise<void> {
  if (!process.send) throw new Error('stoa-server must be started by bench/run.js (it reports over IPC)');
  if (!nativeUws) throw new Error('uWebSockets.js native binding did not load: a benchmark on the JS fallback is meaningless');
  if (!process.env['DATABASE_URL']) throw new Error('DATABASE_URL is not set');
  const port = await freePort();
  const config = loadConfig({
    ...process.env,
    HOST: '127.0.0.1',
    PORT: String(port),
    BASE_URL: `http://localhost:${port}`,
    LOG_LEVEL: process.env['LOG_LEVEL'] || 'info',
    SHUTDOWN_GRACE_MS: '2000',
  });
  const log = createLogger(config.logLevel);
  const app = await startApp(config, log, { onFatal: () => process.exit(1) });
  // When this node heard each status's `update` on the event channel (performance.timeOrigin + now, the clock the
  // streaming bench's clients stamp arrivals with): the fan-out's own start, for an event-to-last-socket figure that
  // leaves out the POST and the commit. The last 1,000 kept.
  const heardAt = new Map<string, number>();
  const fanout = app.streaming.fanout;
  const heard = fanout.heard.bind(fanout);
  fanout.heard = (payload: string) => {
    const at = performance.timeOrigin + performance.now();
    const update = /"event" ?: ?"update", ?"status" ?: ?"(\d+)"/.exec(payload);
    if (update) {
      if (heardAt.size >= 1000) heardAt.delete(heardAt.keys().next().value!);
      heardAt.set(update[1]!, at);
    }
    heard(payload);
  };

  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    const hard = setTimeout(() => process.exit(1), 10_000);
    hard.unref();
    app.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.on('disconnect', stop);
  // The parent may ask for this process's memory, after a full collection when started with --expose-gc (so that
  // a memory curve shows what is kept, not when the collector last ran).
  process.on('message', (m: unknown) => {
    if ((m as { statements?: unknown } | null)?.statements === true) {
      process.send?.({ statements });
      return;
    }
    const asked = (m as { streamHeard?: unknown } | null)?.streamHeard;
    if (typeof asked === 'string') {
      process.send?.({ streamHeard: { at: heardAt.get(asked) ?? null } });
      return;
    }
    if ((m as { memory?: unknown } | null)?.memory !== true) return;
    (globalThis as { gc?: () => void }).gc?.();
    const { rss, heapUsed } = process.memoryUsage();
    process.send?.({ memory: { rss, heapUsed } });
  });
  process.send({ port: app.port });
}

main().catch((e: unknown) => {
  process.stderr.write(`stoa-server failed: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
