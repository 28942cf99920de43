// The supervisor above the server processes (`npm start`, `stoa start`): the top of the supervision tree. It owns the
// embedded PostgreSQL (when there is no DATABASE_URL) and starts STOA_PROCESSES server processes
// (`node --max-semi-space-size=64 dist/src/main.js`) under an actors/ Supervisor: one that dies abnormally is started
// again alone, the database left running, from a spare process kept loaded (STOA_SPARE_PROCESS) so that it serves
// again within about half a second; more than STOA_RESTART_INTENSITY restarts within STOA_RESTART_PERIOD_MS and it
// stops everything and exits 1, for systemd or Docker to act. SIGTERM/SIGINT stop the servers (drained in
// parallel), then the database; exit 0. It prints the banner once, from the first process's report.
import { fileURLToPath } from 'node:url';
import { exponentialBackoff } from '../../actors/policy.js';
import { type ChildSpec, EscalationError, Supervisor } from '../../actors/supervisor.js';
import type { Environment } from '../../config/env-file.js';
import { type Config, ConfigError, loadConfig } from '../../config/schema.js';
import { createLogger, type Logger } from '../log.js';
import { startEmbeddedPostgres } from '../store/embedded.js';
import { ChildExitError, EX_CONFIG, Launch, type LaunchOptions, ServerChild } from '../supervisor/server-child.js';
import { printBanner } from './banner.js';

const MAIN = fileURLToPath(new URL('../main.js', import.meta.url));
/** The server's Node flags (README, Run it): a 64 MiB young generation. */
export const SERVER_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=64'];
/**
 * A server process must serve within this or it counts as failed: only a backstop against a hang, long enough for
 * the migrations of an upgrade on a large database (a start is otherwise about a second).
 */
const START_MS = 15 * 60_000;
/** The first restart at once, later ones within the period a little later: 100 ms doubling, at most 1.5 s. */
const backoff = exponentialBackoff({ baseMs: 100, maxMs: 1_500, jitter: 0 });
const restartDelay = (attempt: number) => (attempt <= 1 ? 0 : backoff(attempt - 1));

interface Database {
  readonly url: string;
  stop(): Promise<void>;
}

async function openDatabase(config: Config, log: Logger): Promise<Database> {
  if (config.databaseUrl) return { url: config.databaseUrl, stop: async () => undefined };
  // dieWithProcess: a companion stops PostgreSQL if this process is killed; the server processes may die freely.
  return startEmbeddedPostgres(config.dataDir, log, { dieWithProcess: true });
}

/** Runs until stopped; resolves with the exit code (0 stopped, 1 restart limit or failure, 78 a configuration error). */
export async function supervise(environment: Environment): Promise<number> {
  const config = loadConfig(environment.env);
  const root = createLogger(config.logLevel, { format: config.logFormat });
  const log = root.child({ component: 'process-supervisor' });
  const { processes, restartIntensity, restartPeriodMs } = config.supervisor;
  // Every process would listen on it; the second could not. Each one serves /metrics on the shared port instead.
  if (processes > 1 && config.metrics.listen) {
    throw new ConfigError('METRICS_LISTEN', `cannot be used with STOA_PROCESSES above 1 (each process would listen on it; got ${processes})`);
  }
  log.info(
    { envFile: environment.file, processes, intensity: restartIntensity, periodMs: restartPeriodMs, spare: config.supervisor.spare },
    'supervisor starting',
  );
  const db = await openDatabase(config, root);

  const live = new Set<ServerChild>();
  let port = config.port;
  let bannerShown = false;
  let started = false;
  let spare: Launch | undefined;
  const launchOptions = (): LaunchOptions => ({
    argv: [...SERVER_NODE_FLAGS, MAIN, ...(environment.file ? ['--env-file', environment.file] : [])],
    env: {
      ...process.env,
      DATABASE_URL: db.url,
      STOA_SUPERVISED: 'true',
      // Several processes share the port on purpose; a port chosen by the system (0) is kept for every later start.
      ...(processes > 1 ? { LISTEN_REUSE_PORT: 'true' } : {}),
      ...(port !== config.port ? { PORT: String(port) } : {}),
    },
    onExit: (e, name) => {
      const level = e.asked || e.code === 0 ? 'info' : 'warn';
      log[level]({ child: name, pid: e.pid, code: e.code, signal: e.signal, asked: e.asked }, 'server process exited');
      if (e.code === EX_CONFIG && !e.asked) void finish(EX_CONFIG, 'a server process found its configuration wrong');
    },
  });
  /** One spare at most, loaded once every slot serves; one that dies is replaced only after the next start. */
  const keepSpare = () => {
    if (!config.supervisor.spare || !started || finishing || spare?.alive) return;
    const s = Launch.spawn('spare', launchOptions());
    spare = s;
    log.info({ child: 'spare', pid: s.pid }, 'spare server process started');
  };
  const startChild = async (name: string): Promise<ServerChild> => {
    if (finishing) throw new Error('the supervisor is stopping');
    const taken = spare?.alive ? spare : undefined;
    spare = undefined;
    const launch = taken ?? Launch.spawn(name, launchOptions());
    log.info({ child: name, pid: launch.pid, spare: taken !== undefined }, 'server process started');
    const child = await ServerChild.start(name, launch, START_MS);
    if (finishing) {
      await child.stop(shutdownMs); // a signal arrived while it started
      throw new Error('the supervisor is stopping');
    }
    live.add(child);
    child.onExit((reason) => {
      live.delete(child);
      if (reason.kind !== 'normal') return; // restarted, or stopped by the supervisor
      // Every process stopped of itself (exit 0, not restarted): nothing is left to supervise.
      setImmediate(() => {
        if (sup && sup.childIds().length === 0) void finish(0, 'every server process has exited');
      });
    });
    port = child.report.port;
    log.info({ child: name, pid: child.pid, url: child.report.url, port }, 'server process serving');
    if (!bannerShown || child.report.firstAdmin) printBanner(child.report);
    bannerShown = true;
    keepSpare();
    return child;
  };

  let sup: Supervisor | undefined;
  let finishing: Promise<number> | undefined;
  let done!: (code: number) => void;
  const finished = new Promise<number>((resolve) => (done = resolve));
  const shutdownMs = config.shutdownGraceMs + 15_000;
  const finish = (code: number, why: string): Promise<number> =>
    (finishing ??= (async () => {
      log.info({ code, why }, 'stopping');
      const hardStop = setTimeout(() => process.exit(code || 1), 2 * shutdownMs + 15_000);
      hardStop.unref();
      // Every server drains at once; then the supervisor stops what is left, and the database goes last.
      await Promise.all([...[...live].map((c) => c.stop(shutdownMs)), spare?.stop(shutdownMs)]);
      await sup?.stop();
      try {
        await db.stop();
      } catch (err) {
        log.error({ err }, 'the database did not stop cleanly');
        code = code || 1;
      }
      log.info({ code }, 'supervisor stopped');
      log.flush?.();
      done(code);
      return code;
    })());
  process.on('SIGTERM', () => void finish(0, 'SIGTERM'));
  process.on('SIGINT', () => void finish(0, 'SIGINT'));

  const specs: ChildSpec[] = Array.from({ length: processes }, (_, i) => ({
    id: `server:${i + 1}`,
    start: () => startChild(`server:${i + 1}`),
    restart: 'transient',
    shutdownMs,
  }));
  try {
    sup = await Supervisor.start('processes', { strategy: 'one_for_one', intensity: restartIntensity, periodMs: restartPeriodMs, restartDelay }, specs, {
      onEvent: (e) => {
        if (e.kind === 'restart') log.info({ child: e.child }, 'restarting server process');
        else if (e.kind === 'escalate') log.error({ child: e.child, intensity: restartIntensity, periodMs: restartPeriodMs }, 'restart limit reached');
      },
    });
  } catch (err) {
    const exit = err instanceof ChildExitError ? err.exit : null;
    log.error({ err, code: exit?.code, signal: exit?.signal }, 'a server process failed to start');
    return finish(exit?.code === EX_CONFIG ? EX_CONFIG : 1, 'start-up failed');
  }
  sup.onExit((reason) => {
    if (reason.kind === 'crash') void finish(1, reason.error instanceof EscalationError ? reason.error.message : String(reason.error));
  });
  if (finishing) return finishing; // a signal arrived during start-up
  started = true;
  keepSpare();
  return finished;
}
