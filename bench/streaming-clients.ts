// A client process of the streaming bench (forked, so that its sockets count against its own descriptor limit): it
// holds a share of the WebSocket subscribers, to Stoa and to the bare uWS server, and records per socket when the
// awaited frame arrived (on the machine's clock, performance.timeOrigin + now, as the servers stamp theirs) and every
// close it did not ask for, with the socket's error if it had one; such a socket reconnects at once, as a real
// client does. Frames are not parsed beyond a substring test, so as little as possible of the clients' own
// work is charged to the measurement.
import WebSocket from 'ws';

export type SetName = 'stoa' | 'bare';

export type ClientRequest =
  | { kind: 'open'; set: SetName; urls: string[] }
  | { kind: 'expect'; set: SetName; count: number; timeoutMs: number; sample: number }
  | { kind: 'closes'; set: SetName }
  | { kind: 'close'; set: SetName };
type ClientMsg = ClientRequest & { seq: number };

export interface Expected {
  /** Per socket of the set: the arrival time, or NaN when none came. */
  readonly arrivals: Float64Array;
  /** The frame the sample socket received (for the bare server to publish the same bytes). */
  readonly sampleFrame: string;
}

export interface Closed {
  readonly socket: number;
  readonly code: number;
  readonly reason: string;
  /** When (performance.timeOrigin + now). */
  readonly at: number;
}

const OPEN_AT_ONCE = 200;
// Stoa's frames of interest carry `"event":"update"`; the bare server sends nothing else, so any frame counts there.
const MATCH: Record<SetName, string> = { stoa: '"event":"update"', bare: '' };

class SocketSet {
  readonly sockets: WebSocket[] = [];
  arrivals = new Float64Array(0);
  got = 0;
  want = 0;
  sample = -1;
  sampleFrame = '';
  closes: Closed[] = [];
  closing = false;
  onAll: (() => void) | null = null;

  constructor(readonly name: SetName) {}

  open(url: string, k: number): Promise<WebSocket> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { perMessageDeflate: false });
      let error = '';
      ws.once('open', () => resolve(ws));
      ws.on('error', (e) => {
        error = e.message;
        reject(e);
      });
      ws.on('close', (code, reason) => {
        if (this.closing) return;
        this.closes.push({ socket: k, code, reason: reason.toString() || error, at: performance.timeOrigin + performance.now() });
        this.open(url, k).then(
          (again) => {
            if (this.closing) again.terminate();
            else this.sockets[k] = again;
          },
          () => undefined, // counted as a close already; its deliveries as missed
        );
      });
      ws.on('message', (data) => {
        const at = performance.timeOrigin + performance.now();
        if (!Number.isNaN(this.arrivals[k]!)) return;
        const text = data.toString();
        if (!text.includes(MATCH[this.name])) return;
        this.arrivals[k] = at;
        if (k === this.sample) this.sampleFrame = text;
        if (++this.got === this.want) this.onAll?.();
      });
    });
  }

  async openAll(urls: readonly string[]): Promise<number> {
    this.closing = false;
    this.closes = [];
    for (let start = 0; start < urls.length; start += OPEN_AT_ONCE) {
      const batch: Promise<WebSocket>[] = [];
      for (let i = start; i < Math.min(urls.length, start + OPEN_AT_ONCE); i++) batch.push(this.open(urls[i]!, i));
      // By index: a socket closed and reconnected while its batch was opening keeps its new connection.
      for (const [j, ws] of (await Promise.all(batch)).entries()) this.sockets[start + j] ??= ws;
    }
    this.arrivals = new Float64Array(this.sockets.length).fill(Number.NaN);
    return this.sockets.length;
  }

  expect(count: number, timeoutMs: number, sample: number): Promise<Expected> {
    this.arrivals.fill(Number.NaN);
    this.got = 0;
    this.want = count;
    this.sample = sample;
    this.sampleFrame = '';
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.onAll = null;
        resolve({ arrivals: this.arrivals.slice(), sampleFrame: this.sampleFrame });
      };
      const timer = setTimeout(done, timeoutMs);
      this.onAll = done;
      if (count === 0) done();
    });
  }

  async closeAll(): Promise<void> {
    this.closing = true;
    // A socket the server already closed has no close event to come: waiting for one hung the bench.
    await Promise.all(
      this.sockets.splice(0).map((ws) =>
        ws.readyState === WebSocket.CLOSED
          ? Promise.resolve()
          : new Promise<void>((r) => {
              ws.once('close', () => r());
              ws.close();
            }),
      ),
    );
  }
}

const sets: Record<SetName, SocketSet> = { stoa: new SocketSet('stoa'), bare: new SocketSet('bare') };
const reply = (seq: number, value?: unknown) => process.send!({ seq, ok: true, value });
const fail = (seq: number, e: unknown) => process.send!({ seq, ok: false, error: e instanceof Error ? e.message : String(e) });

process.on('message', (m: ClientMsg) => {
  const set = sets[m.set];
  const answer = (p: Promise<unknown>) =>
    p.then(
      (v) => reply(m.seq, v),
      (e) => fail(m.seq, e),
    );
  if (m.kind === 'open') answer(set.openAll(m.urls));
  else if (m.kind === 'expect') answer(set.expect(m.count, m.timeoutMs, m.sample));
  else if (m.kind === 'closes') answer(Promise.resolve(set.closes));
  else answer(set.closeAll());
});
process.on('disconnect', () => process.exit(0));
