// One logger for the process; components take children with their own bound fields.
import { pino, type DestinationStream, type Logger } from 'pino';
import { LineWriter } from './log-writer.js';

export type { Logger };

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

export function createLogger(level: string, dest?: DestinationStream): Logger {
  // Asynchronous writes (one write per event-loop turn) keep the per-request log line off the hot path; lines
  // appear at once on a quiet server and whatever is pending is written at exit.
  const out = dest ?? new LineWriter(1);
  return pino({ level, base: { service: 'stoa' }, timestamp: isoTimeCached }, out);
}
