// The log destination: lines are collected during an event-loop turn and written with one fs.write, off the
// main thread. (sonic-boom re-measures the whole pending chunk on every line, which under load cost several µs a
// request.) Bounded: past maxPendingChars lines are dropped and counted, never buffered without limit. Whatever is
// pending is written synchronously at exit.
import fs from 'node:fs';

const RETRY_MS = 10;

export class LineWriter {
  private parts: string[] = [];
  private pendingChars = 0;
  private writing = false;
  private dropped = 0;

  constructor(private readonly fd: number, private readonly maxPendingChars = 16 * 1024 * 1024) {
    process.once('exit', () => this.flushSync());
  }

  write(line: string): boolean {
    if (this.pendingChars + line.length > this.maxPendingChars) {
      this.dropped++;
      return false;
    }
    this.parts.push(line);
    this.pendingChars += line.length;
    if (!this.writing) {
      this.writing = true;
      setImmediate(() => this.writeOut());
    }
    return true;
  }

  /** Lines dropped because the destination could not keep up; reported once writing catches up. */
  get droppedLines(): number {
    return this.dropped;
  }

  flush(cb?: (err?: Error) => void): void {
    if (!this.writing) return cb?.();
    const check = () => (this.writing ? setTimeout(check, RETRY_MS) : cb?.());
    check();
  }

  flushSync(): void {
    const data = this.take();
    let off = 0;
    while (off < data.length) {
      try {
        off += fs.writeSync(this.fd, data, off, data.length - off);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') return;
      }
    }
  }

  private take(): Buffer {
    if (this.dropped > 0) {
      this.parts.push(`${JSON.stringify({ level: 40, time: new Date().toISOString(), msg: 'log lines dropped: the destination was too slow', dropped: this.dropped })}\n`);
      this.dropped = 0;
    }
    const data = Buffer.from(this.parts.length === 1 ? this.parts[0]! : this.parts.join(''));
    this.parts = [];
    this.pendingChars = 0;
    return data;
  }

  private writeOut(): void {
    if (this.parts.length === 0) {
      this.writing = false;
      return;
    }
    this.send(this.take(), 0);
  }

  private send(data: Buffer, off: number): void {
    fs.write(this.fd, data, off, data.length - off, null, (err, written) => {
      if (err) {
        // A non-blocking pipe that is full: try again shortly. Anything else (closed stdout): give the lines up.
        if (err.code === 'EAGAIN') setTimeout(() => this.send(data, off), RETRY_MS).unref();
        else this.writeOut();
        return;
      }
      if (off + written < data.length) return this.send(data, off + written);
      this.writeOut();
    });
  }
}
