// One logger for the process; components take children with their own bound fields.
import { destination, pino, stdTimeFunctions, type DestinationStream, type Logger } from 'pino';

export type { Logger };

export function createLogger(level: string, dest?: DestinationStream): Logger {
  // Asynchronous writes keep the per-request log line off the hot path; no minimum buffer, so lines appear at once
  // on a quiet server and are not lost in a buffer if the process dies.
  const out = dest ?? destination({ dest: 1, sync: false });
  return pino({ level, base: { service: 'stoa' }, timestamp: stdTimeFunctions.isoTime }, out);
}
