// Streaming clients for tests: a raw WebSocket (the `ws` package, as Node 20 has no global WebSocket) and a
// server-sent-events reader over node:http, each keeping what it received in order; and a wait until this node's
// hub holds a subscription (Mastodon's protocol acknowledges none).
import assert from 'node:assert/strict';
import http from 'node:http';
import WebSocket from 'ws';
import type { Json } from './api.js';
import type { ServerProcess } from './server-process.js';
import type { TestServer } from './server.js';
import { eventually } from './wait.js';

export interface Frame {
  readonly stream?: string[];
  readonly event?: string;
  /** The payload parsed when it is JSON (a delete's is the bare id). */
  readonly payload?: Json;
  readonly error?: string;
  readonly status?: number;
}

export interface WsClient {
  readonly ws: WebSocket;
  readonly frames: Frame[];
  readonly closed: Promise<number>;
  send(msg: unknown): void;
  close(): void;
}

function parsePayload(p: unknown): Json {
  // A delete's payload is a bare id: kept as the string it is (as a number it would lose digits).
  if (typeof p !== 'string' || !/^[[{]/.test(p)) return p;
  try {
    return JSON.parse(p);
  } catch {
    return p;
  }
}

/** Opens a WebSocket to /api/v1/streaming with the token in the protocol (default), the query, or the header. */
export function openWs(base: string, token: string | undefined, query = '', via: 'protocol' | 'query' | 'header' = 'protocol'): Promise<WsClient> {
  const url = new URL(`${base.replace(/^http/, 'ws')}/api/v1/streaming`);
  url.search = query;
  if (token && via === 'query') url.searchParams.set('access_token', token);
  const ws = new WebSocket(url, token && via === 'protocol' ? [token] : [], token && via === 'header' ? { headers: { Authorization: `Bearer ${token}` } } : {});
  const frames: Frame[] = [];
  ws.on('message', (data) => {
    const m = JSON.parse(data.toString()) as Frame & { payload?: unknown };
    frames.push({ ...m, payload: parsePayload(m.payload) });
  });
  const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve({ ws, frames, closed, send: (m) => ws.send(JSON.stringify(m)), close: () => ws.close() }));
    ws.once('unexpected-response', (_req, res) =>
      reject(Object.assign(new Error(`upgrade refused: ${res.statusCode}`), { status: res.statusCode, headers: res.headers })),
    );
    ws.once('error', reject);
  });
}

export interface SseEvent {
  readonly event: string;
  readonly data: Json;
}

export interface SseClient {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly events: SseEvent[];
  /** Comment lines (`:thump`, `:)`). */
  readonly comments: string[];
  /** The body of a refusal. */
  readonly body: string;
  readonly ended: Promise<void>;
  /** The response itself (a test may pause it to stop reading). */
  readonly response: http.IncomingMessage;
  close(): void;
}

/** GETs an SSE path and parses `event:`/`data:` blocks and comment lines as they arrive. */
export function openSse(base: string, path: string, token: string | undefined, headers: Record<string, string> = {}): Promise<SseClient> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${base}${path}`, { headers: { ...(token ? { Authorization: `Bearer ${token}` } : {}), ...headers } }, (res) => {
      const events: SseEvent[] = [];
      const comments: string[] = [];
      let buf = '';
      let body = '';
      let event = '';
      const ended = new Promise<void>((r) => res.on('close', () => r()));
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (res.statusCode !== 200) {
          body += chunk;
          return;
        }
        buf += chunk;
        for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
          const line = buf.slice(0, i);
          buf = buf.slice(i + 1);
          if (line.startsWith(':')) comments.push(line);
          else if (line.startsWith('event: ')) event = line.slice(7);
          else if (line.startsWith('data: ')) events.push({ event, data: parsePayload(line.slice(6)) });
        }
      });
      const client: SseClient = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        events,
        comments,
        get body() {
          return body;
        },
        ended,
        response: res,
        close: () => req.destroy(),
      };
      resolve(client);
    });
    req.on('error', reject);
  });
}

/** Waits until this (in-process) node has `n` clients of the account subscribed to `channel`. */
export async function subscribed(s: TestServer, accountId: string, channel: string, n = 1): Promise<void> {
  await eventually(() => {
    let count = 0;
    for (const c of s.app.streaming.hub.clients) if (c.accountId === accountId && [...c.subs.values()].some((x) => x.channel === channel)) count++;
    if (count < n) throw new Error(`${count} of ${n} ${channel} subscriptions of ${accountId}`);
  });
}

/** The frames of one event kind, in order. */
export const framesOf = (frames: readonly Frame[], event: string) => frames.filter((f) => f.event === event);

/** After a two-node test: closes the sockets, stops node B (which must exit cleanly on SIGTERM), then node A. */
export async function stopNodes(sockets: readonly WsClient[], a: TestServer | undefined, b: ServerProcess | undefined): Promise<void> {
  for (const c of sockets) c.ws.terminate();
  if (b) {
    b.child.kill('SIGTERM');
    assert.equal(await b.exited, 0, `node B exits cleanly on SIGTERM:\n${b.output()}`);
  }
  await a?.stop();
}
