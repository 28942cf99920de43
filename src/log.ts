// One logger for the process; components take children with their own bound fields.
import { destination, pino, stdTimeFunctions, type DestinationStream, type Logger } from 'pino';

export type { Logger };

export function createLogger(level: string, dest?: DestinationStream): Logger {
  // Asynchronous, buffered writes keep the per-request log line off the hot path's critical section.
  const out = dest ?? destination({ dest: 1, sync: false, minLength: 4096 });
  return pino({ level, base: { service: 'stoa' }, timestamp: stdTimeFunctions.isoTime }, out);
}
