// The log destination: lines are gathered for up to FLUSH_MS (or BATCH_CHARS) and written with one fs.write, off
// the main thread. Writing once per event-loop turn cost a buffer and a thread-pool round trip for every few
// lines; sonic-boom re-measures the whole pending chunk on every line. Bounded: past maxPendingChars lines are
// dropped and counted, never buffered without limit. Whatever is pending is written synchronously at exit.
import fs from 'node:fs';

const RETRY_MS = 10;
const FLUSH_MS = 10;
const BATCH_CHARS = 64 * 1024;

export class LineWriter {
  private parts: string[] = [];
  private pendingChars = 0;
  private writing = false;
  private timer: NodeJS.Timeout | null = null;
  private dropped = 0;

  constructor(
    private readonly fd: number,
    private readonly maxPendingChars = 16 * 1024 * 1024,
  ) {
    process.once('exit', () => this.flushSync());
  }

  write(line: string): boolean {
    if (this.pendingChars + line.length > this.maxPendingChars) {
      this.dropped++;
      return false;
    }
    this.parts.push(line);
    this.pendingChars += line.length;
    if (this.writing) return true;
    if (this.pendingChars >= BATCH_CHARS) {
      this.startWriting();
    } else if (!this.timer) {
      this.timer = setTimeout(() => this.startWriting(), FLUSH_MS);
      this.timer.unref(); // the exit hook writes what is pending
    }
    return true;
  }

  private startWriting(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.writing || this.parts.length === 0) return;
    this.writing = true;
    this.send(this.take(), 0);
  }

  /** Writes everything pending now; cb once it is all written. */
  flush(cb?: (err?: Error) => void): void {
    const check = (): void => {
      if (!this.writing && this.parts.length > 0) this.startWriting();
      if (this.writing) setTimeout(check, RETRY_MS);
      else cb?.();
    };
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
      this.parts.push(
        `${JSON.stringify({ level: 40, time: new Date().toISOString(), msg: 'log lines dropped: the destination was too slow', dropped: this.dropped })}\n`,
      );
      this.dropped = 0;
    }
    const data = Buffer.from(this.parts.length === 1 ? this.parts[0]! : this.parts.join(''));
    this.parts = [];
    this.pendingChars = 0;
    return data;
  }

  private written(): void {
    this.writing = false;
    // A full batch goes at once; a partial one waits for its window, so a busy server writes in large chunks.
    if (this.pendingChars >= BATCH_CHARS) this.startWriting();
    else if (this.parts.length > 0 && !this.timer) {
      this.timer = setTimeout(() => this.startWriting(), FLUSH_MS);
      this.timer.unref();
    }
  }

  private send(data: Buffer, off: number): void {
    fs.write(this.fd, data, off, data.length - off, null, (err, written) => {
      if (err) {
        // A non-blocking pipe that is full: try again shortly. Anything else (closed stdout): give the lines up.
        if (err.code === 'EAGAIN') setTimeout(() => this.send(data, off), RETRY_MS).unref();
        else this.written();
        return;
      }
      if (off + written < data.length) return this.send(data, off + written);
      this.written();
    });
  }
}
