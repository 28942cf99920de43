// The WebSocket endpoint (/api/v1/streaming): authenticated at the upgrade (401 with X-Error-Message otherwise, as
// Mastodon), `?stream=` subscribed on open, then `{"type":"subscribe"|"unsubscribe","stream":…}` messages, several
// streams per socket. Frames are `{"stream":[…],"event":…,"payload":"<JSON text>"}`. A socket whose unread bytes
// pass the bound is closed (uWS's maxBackpressure, checked after each send): it never buffers without end.
import type { BearerAuth } from '../../http/auth.js';
import type { Logger } from '../../log.js';
import type { StreamAudienceStore } from '../../store/stream-audience.js';
import type { UpgradeContext, WebSocket, WebSocketBehavior } from '../../http/uws.js';
import { StreamError, type Subscription } from './channels.js';
import { clientIdentity, type StreamClient, type StreamHub } from './hub.js';
import { authenticateStream, streamingToken, subscribe } from './session.js';

const MAX_MESSAGE_BYTES = 4096;
const IDLE_TIMEOUT_S = 60;
const MAX_SUBSCRIPTIONS = 100;

interface SocketData {
  client?: WsClient;
  readonly identity?: ReturnType<typeof clientIdentity>;
  readonly query: string;
}

/**
 * The last frames built, by stream and event: a fan-out sends one payload to thousands of sockets, and escaping a
 * status's JSON into each frame anew cost more than the sends. Payloads compare by reference first, so a hit is cheap.
 */
const recentFrames = new Map<string, { readonly payload: string | undefined; readonly frame: string }>();
const RECENT_FRAMES_MAX = 64;

// No payload (filters_changed): no `payload` key, as Mastodon's streaming server sends it.
function frameOf(stream: readonly string[], event: string, payload: string | undefined): string {
  const key = `${event}\u0000${stream.join('\u0000')}`;
  const hit = recentFrames.get(key);
  if (hit !== undefined && hit.payload === payload) return hit.frame;
  const frame = JSON.stringify({ stream, event, payload });
  if (hit === undefined && recentFrames.size >= RECENT_FRAMES_MAX) recentFrames.clear();
  recentFrames.set(key, { payload, frame });
  return frame;
}

class WsClient implements StreamClient {
  readonly subs = new Map<string, Subscription>();
  closed = false;
  readonly accountId: string;
  readonly userId: string;
  readonly tokenId: string;
  readonly appId: string;
  readonly scopes: readonly string[];

  constructor(
    private readonly ws: WebSocket<SocketData>,
    id: ReturnType<typeof clientIdentity>,
    private readonly maxBuffered: number,
  ) {
    this.accountId = id.accountId;
    this.userId = id.userId;
    this.tokenId = id.tokenId;
    this.appId = id.appId;
    this.scopes = id.scopes;
  }

  send(stream: readonly string[], event: string, payload: string | undefined): void {
    this.raw(frameOf(stream, event, payload));
  }

  raw(text: string): void {
    if (this.closed) return;
    let status = 1;
    this.ws.cork(() => {
      status = this.ws.send(text, false);
    });
    // 2: dropped at uWS's limit; either way a reader this far behind is closed, not buffered for.
    if (status === 2 || this.ws.getBufferedAmount() > this.maxBuffered) this.close();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.ws.close(); // the close handler removes it from the hub
  }
}

export function streamingWebSocket(d: {
  readonly hub: StreamHub;
  readonly bearer: BearerAuth;
  readonly audience: StreamAudienceStore;
  readonly maxBuffered: number;
  readonly log: Logger;
}): WebSocketBehavior<SocketData> {
  const subscribeTo = (c: WsClient, msg: Record<string, unknown>) => {
    subscribe(d.audience, c.accountId, c.scopes, msg['stream'], msg).then(
      (sub) => {
        // Every event walks each client's subscriptions: one socket may not make that walk as long as it likes.
        if (c.subs.size >= MAX_SUBSCRIPTIONS && !c.subs.has(sub.key)) {
          c.raw(JSON.stringify({ error: `At most ${MAX_SUBSCRIPTIONS} streams per connection`, status: 400 }));
          return;
        }
        c.subs.set(sub.key, sub);
      },
      (e: unknown) => {
        if (e instanceof StreamError) c.raw(JSON.stringify({ error: e.message, status: e.status }));
        else d.log.error({ err: e }, 'streaming subscription failed');
      },
    );
  };
  return {
    maxPayloadLength: MAX_MESSAGE_BYTES,
    idleTimeout: IDLE_TIMEOUT_S,
    sendPingsAutomatically: true,
    maxBackpressure: d.maxBuffered,
    closeOnBackpressureLimit: 1,
    upgrade: (res, req, context: UpgradeContext) => {
      const key = req.getHeader('sec-websocket-key');
      const protocol = req.getHeader('sec-websocket-protocol');
      const extensions = req.getHeader('sec-websocket-extensions');
      const query = req.getQuery() ?? '';
      const token = streamingToken({
        authorization: req.getHeader('authorization') || undefined,
        accessToken: new URLSearchParams(query).get('access_token') ?? undefined,
        protocol: protocol || undefined,
      });
      let aborted = false;
      res.onAborted(() => {
        aborted = true;
      });
      authenticateStream(d.bearer, token).then(
        (t) => {
          if (aborted) return;
          // The protocol is echoed back: browsers close a socket whose offered protocol is not taken.
          res.cork(() => res.upgrade<SocketData>({ identity: clientIdentity(t), query }, key, protocol, extensions, context));
        },
        (e: unknown) => {
          if (aborted) return;
          const status = e instanceof StreamError ? e.status : 500;
          const message = e instanceof StreamError ? e.message : 'Internal server error';
          if (!(e instanceof StreamError)) d.log.error({ err: e }, 'streaming upgrade failed');
          res.cork(() =>
            res
              .writeStatus(status === 401 ? '401 Unauthorized' : status === 400 ? '400 Bad Request' : '500 Internal Server Error')
              .writeHeader('Content-Type', 'application/json')
              .writeHeader('X-Error-Message', message)
              .end(JSON.stringify({ error: message }), true),
          );
        },
      );
    },
    open: (ws) => {
      const data = ws.getUserData();
      const c = new WsClient(ws, data.identity!, d.maxBuffered);
      data.client = c;
      d.hub.add(c);
      const params = Object.fromEntries(new URLSearchParams(data.query));
      if (params['stream']) subscribeTo(c, params);
    },
    message: (ws, message, isBinary) => {
      const c = ws.getUserData().client!;
      if (isBinary) return void ws.end(1003, 'Binary messages are not supported');
      let msg: unknown;
      try {
        msg = JSON.parse(Buffer.from(message).toString('utf8'));
      } catch {
        return c.raw(JSON.stringify({ error: 'Invalid JSON', status: 400 }));
      }
      if (typeof msg !== 'object' || msg === null || Array.isArray(msg)) return c.raw(JSON.stringify({ error: 'Invalid message', status: 400 }));
      const m = msg as Record<string, unknown>;
      if (m['type'] === 'subscribe') subscribeTo(c, m);
      else if (m['type'] === 'unsubscribe') {
        subscribe(d.audience, c.accountId, c.scopes, m['stream'], m).then(
          (sub) => c.subs.delete(sub.key),
          () => c.raw(JSON.stringify({ error: 'Error unsubscribing from channel', status: 400 })),
        );
      }
      // Other types are ignored, as Mastodon ignores them.
    },
    close: (ws) => {
      const c = ws.getUserData().client;
      if (!c) return;
      c.closed = true;
      d.hub.remove(c);
    },
  };
}
