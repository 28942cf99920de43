// A worker thread of the streaming bench: it holds a share of the WebSocket subscribers and records, per post, when
// each socket received its `update` (on the shared clock, performance.timeOrigin + now). Frames are not parsed beyond
// a substring test, so the measurement charges as little as possible of the client's own work.
import { parentPort } from 'node:worker_threads';
import WebSocket from 'ws';

type Msg =
  | { seq: number; kind: 'open'; count: number; urls: string[]; tokens: string[]; offset: number }
  | { seq: number; kind: 'expect'; timeoutMs: number }
  | { kind: 'id'; id: string }
  | { seq: number; kind: 'close' };

const OPEN_AT_ONCE = 200;
const sockets: WebSocket[] = [];
let arrivals = new Float64Array(0);
let got = 0;
let firstFrame = '';
let onAll: (() => void) | null = null;

const now = () => performance.timeOrigin + performance.now();
const reply = (seq: number, value?: unknown) => parentPort!.postMessage({ seq, ok: true, value });
const fail = (seq: number, e: unknown) => parentPort!.postMessage({ seq, ok: false, error: e instanceof Error ? e.message : String(e) });

function open(url: string, token: string, k: number): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${url}&access_token=${encodeURIComponent(token)}`, { perMessageDeflate: false });
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
    ws.on('message', (data) => {
      if (!Number.isNaN(arrivals[k]!)) return;
      const at = now();
      const text = data.toString();
      if (!text.includes('"event":"update"')) return;
      arrivals[k] = at;
      if (k === 0) firstFrame = text;
      if (++got === sockets.length) onAll?.();
    });
  });
}

async function openAll(m: Extract<Msg, { kind: 'open' }>): Promise<void> {
  for (let start = 0; start < m.count; start += OPEN_AT_ONCE) {
    const batch: Promise<WebSocket>[] = [];
    for (let i = start; i < Math.min(m.count, start + OPEN_AT_ONCE); i++) {
      const global = m.offset + i;
      batch.push(open(m.urls[global % m.urls.length]!, m.tokens[global % m.tokens.length]!, sockets.length + batch.length));
    }
    sockets.push(...(await Promise.all(batch)));
  }
  arrivals = new Float64Array(sockets.length).fill(Number.NaN);
}

function expect(timeoutMs: number, id: Promise<string>): Promise<number[]> {
  arrivals.fill(Number.NaN);
  got = 0;
  firstFrame = '';
  return new Promise((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      onAll = null;
      id.then((expected) => {
        if (got > 0 && !firstFrame.includes(expected)) reject(new Error(`socket 0 received another post than ${expected}`));
        else resolve(Array.from(arrivals).filter((a) => !Number.isNaN(a)));
      }, reject);
    };
    const timer = setTimeout(done, timeoutMs);
    onAll = done;
  });
}

let nextId: ((id: string) => void) | null = null;
parentPort!.on('message', (m: Msg) => {
  if (m.kind === 'id') {
    nextId?.(m.id);
    return;
  }
  if (m.kind === 'open') {
    openAll(m).then(
      () => reply(m.seq, sockets.length),
      (e) => fail(m.seq, e),
    );
  } else if (m.kind === 'expect') {
    const id = new Promise<string>((r) => (nextId = r));
    expect(m.timeoutMs, id).then(
      (a) => reply(m.seq, a),
      (e) => fail(m.seq, e),
    );
  } else {
    // A socket the server already closed (on a loaded machine one may miss its pings) has no close event to come:
    // waiting for one hung the bench.
    const closing = sockets.splice(0).map((ws) =>
      ws.readyState === WebSocket.CLOSED
        ? Promise.resolve()
        : new Promise<void>((r) => {
            ws.once('close', () => r());
            ws.close();
          }),
    );
    Promise.all(closing).then(
      () => reply(m.seq),
      (e) => fail(m.seq, e),
    );
  }
});
