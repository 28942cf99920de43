// One logger for the process; components take children with their own bound fields.
import { pino, type DestinationStream, type Logger } from 'pino';
import { prettyFactory } from 'pino-pretty';
import { LineWriter } from './log-writer.js';

export type { Logger };

/** json: one JSON object per line (for collectors); pretty: one readable line per event (for a terminal). */
export type LogFormat = 'json' | 'pretty';

export interface LoggerOptions {
  /** Absent: pretty when stdout is a terminal, JSON otherwise. */
  readonly format?: LogFormat | undefined;
  readonly dest?: DestinationStream;
}

// ISO time, formatted once per millisecond: under load many lines share a millisecond, and formatting a Date
// per line was a measurable part of the request log's cost.
let lastMs = 0;
let lastTime = '';
function isoTimeCached(): string {
  const now = Date.now();
  if (now !== lastMs) {
    lastMs = now;
    lastTime = `,"time":"${new Date(now).toISOString()}"`;
  }
  return lastTime;
}

export function createLogger(level: string, opts: LoggerOptions = {}): Logger {
  // Asynchronous writes (one write per event-loop turn) keep the per-request log line off the hot path; lines
  // appear at once on a quiet server and whatever is pending is written at exit.
  const out = opts.dest ?? new LineWriter(1);
  const format = opts.format ?? (process.stdout.isTTY ? 'pretty' : 'json');
  return pino({ level, base: { service: 'stoa' }, timestamp: isoTimeCached }, format === 'pretty' ? prettyLines(out) : out);
}

/** Each JSON line rewritten for people, in this thread (no transport worker), into the same batched writer. */
function prettyLines(out: DestinationStream): DestinationStream {
  const pretty = prettyFactory({
    colorize: process.stdout.isTTY === true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,service',
    singleLine: true,
  });
  return { write: (line: string) => out.write(pretty(line)), flush: (cb?: (err?: Error) => void) => (out as LineWriter).flush?.(cb) } as DestinationStream;
}
