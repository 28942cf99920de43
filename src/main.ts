// Wiring only: config → logger → application → signals. SIGTERM/SIGINT close in reverse order.
// `node dist/src/main.js [--env-file PATH]`: the environment comes from the real one over `.env.production` (or PATH).
// This is the server alone, for process managers that supervise it themselves; `npm start` runs it under the
// supervisor (cli/supervise.ts), which sets STOA_SUPERVISED and DATABASE_URL for it.
import { EnvFileError, readEnvironment } from '../config/env-file.js';
import { type Config, ConfigError, loadConfig } from '../config/schema.js';
import { startApp } from './app.js';
import { printBanner } from './cli/banner.js';
import { nativeUws } from './http/uws.js';
import { createLogger } from './log.js';
import { awaitStartOrder, reportServing } from './supervisor/serving-report.js';

async function main(): Promise<void> {
  let config: Config;
  let envFile: string | null;
  try {
    const environment = readEnvironment(process.argv.slice(2));
    if (environment.args.length > 0) throw new EnvFileError(`unknown argument ${environment.args[0]}; usage: main.js [--env-file PATH]`);
    envFile = environment.file;
    config = loadConfig(environment.env);
  } catch (e) {
    if (e instanceof ConfigError || e instanceof EnvFileError) {
      process.stderr.write(`${e.message}\n`);
      process.exit(78); // EX_CONFIG
    }
    throw e;
  }
  const log = createLogger(config.logLevel, { format: config.logFormat });
  log.info({ envFile }, envFile ? 'configuration file read' : 'no configuration file; environment only');
  if (!nativeUws) log.error('uWebSockets.js native binding did not load; running on the slow JS fallback');
  // Under the supervisor, loaded and waiting (a spare, perhaps) until it is told to start.
  if (config.supervised && process.send) await awaitStartOrder();
  const app = await startApp(config, log, { onFatal: () => void shutdown(1) });
  log.info({ url: app.url, port: app.port, uws: nativeUws ? 'native' : 'fallback' }, 'listening');
  // Under the supervisor (npm start) it prints the banner, once for all server processes; run directly, this does.
  if (!(config.supervised && reportServing({ url: app.url, port: app.port, firstAdmin: app.firstAdmin }))) printBanner(app);

  let exiting = false;
  async function shutdown(code: number): Promise<void> {
    if (exiting) return;
    exiting = true;
    log.info('shutting down');
    const hardStop = setTimeout(() => process.exit(code || 1), config!.shutdownGraceMs + 15_000);
    hardStop.unref();
    try {
      await app.stop();
    } catch (e) {
      log.error({ err: e }, 'error during shutdown');
      code = code || 1;
    }
    log.flush?.();
    process.exit(code);
  }
  process.on('SIGTERM', () => void shutdown(0));
  process.on('SIGINT', () => void shutdown(0));
  // The supervisor is gone (killed): nothing would restart this process or keep its database, so it stops too.
  if (config.supervised) process.on('disconnect', () => void shutdown(0));
}

main().catch((e: unknown) => {
  process.stderr.write(`Stoa failed to start: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
