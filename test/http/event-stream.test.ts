// ResponseEventSink against a socket that takes only what its buffer has room for, as uWS's tryEnd does: whatever the
// writes and the reader's pace, the bytes on the wire are the events in order, byte for byte, and the stream is
// closed exactly when more than the bound waits unsent (never for a reader that keeps up).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { EVENT_STREAM_LENGTH, ResponseEventSink } from '../../src/http/event-stream.js';
import type { HttpResponse } from '../../src/http/uws.js';

/** A response whose socket has `room` bytes free; tryEnd takes what fits and refuses the rest without buffering. */
class FakeSocket {
  wire: Buffer[] = [];
  offset = 0;
  room: number;
  closed = false;
  writable: ((offset: number) => boolean) | undefined;
  corked = false;
  constructor(room: number) {
    this.room = room;
  }
  readonly res = {
    cork: (cb: () => void) => {
      const outer = this.corked;
      this.corked = true;
      cb();
      this.corked = outer;
      return this.res;
    },
    tryEnd: (data: string | Buffer, total: number): [boolean, boolean] => {
      const chunk = Buffer.from(data);
      assert.ok(!this.closed, 'no write after close');
      assert.equal(total, EVENT_STREAM_LENGTH);
      const n = Math.min(this.room, chunk.length);
      this.wire.push(Buffer.from(chunk.subarray(0, n)));
      this.offset += n;
      this.room -= n;
      return [n === chunk.length, false];
    },
    getWriteOffset: () => this.offset,
    onWritable: (fn: (offset: number) => boolean) => {
      this.writable = fn;
      return this.res;
    },
    close: () => {
      assert.ok(!this.corked, 'not closed while corked');
      this.closed = true;
      return this.res;
    },
  };
  /** The reader takes n bytes: room frees up and uWS reports the socket writable. */
  read(n: number): void {
    this.room += n;
    this.writable?.(this.offset);
  }
  get sent(): Buffer {
    return Buffer.concat(this.wire);
  }
}

const immediate = () => new Promise<void>((r) => setImmediate(r));

describe('ResponseEventSink', () => {
  it('writes the events in order and closes exactly when more than the bound waits', async () => {
    const op = fc.oneof(fc.record({ write: fc.string({ unit: 'grapheme', maxLength: 40 }) }), fc.record({ read: fc.integer({ min: 0, max: 90 }) }));
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 60 }), fc.integer({ min: 1, max: 120 }), fc.array(op, { maxLength: 60 }), async (room, bound, ops) => {
        const sock = new FakeSocket(room);
        const sink = new ResponseEventSink(sock.res as unknown as HttpResponse, bound);
        let closedBySink = 0;
        sink.onClose(() => closedBySink++);
        sink.open(() => undefined, ':)\n');
        let written = Buffer.from(':)\n');
        let overBound = Buffer.byteLength(':)\n') - sock.offset > bound;
        for (const o of ops) {
          if ('write' in o) {
            sink.write(o.write);
            if (!overBound) written = Buffer.concat([written, Buffer.from(o.write)]);
          } else if (!sock.closed) {
            sock.read(o.read);
          }
          if (!overBound && written.length - sock.offset > bound) overBound = true;
          assert.ok(written.subarray(0, sock.offset).equals(sock.sent), 'the wire holds the events in order');
          assert.equal(sink.closed, overBound, 'closed exactly when more than the bound waits unsent');
        }
        await immediate();
        assert.equal(sock.closed, overBound, 'the connection is closed after the callback');
        assert.equal(closedBySink, overBound ? 1 : 0);
        if (!overBound) {
          sock.read(Number.MAX_SAFE_INTEGER);
          assert.ok(sock.sent.equals(written), 'a reader that reads gets every byte');
        }
      }),
      { seed: 39, numRuns: 500 },
    );
  });

  it('ends by closing after the current callback, and not at all once the client is gone', async () => {
    const sock = new FakeSocket(1000);
    const sink = new ResponseEventSink(sock.res as unknown as HttpResponse, 100);
    sock.res.cork(() => {
      sink.open(() => undefined, ':)\n');
      sink.end();
    });
    assert.equal(sock.closed, false);
    await immediate();
    assert.equal(sock.closed, true);
    sink.write('event: late\n\n');
    assert.equal(sock.sent.toString(), ':)\n');

    const gone = new FakeSocket(1000);
    const sink2 = new ResponseEventSink(gone.res as unknown as HttpResponse, 100);
    sink2.open(() => undefined, ':)\n');
    sink2.end();
    sink2.aborted();
    await immediate();
    assert.equal(gone.closed, false, 'a response uWS reported gone is not touched');
  });
});
