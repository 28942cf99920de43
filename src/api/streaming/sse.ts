// The server-sent-events endpoints (/api/v1/streaming/user, public, hashtag, list, direct…) and the health check.
// Each stream is one subscription; events go out as `event: <name>\ndata: <payload>\n\n`, with a `:thump` comment
// every 15 s from the node's one heartbeat timer (hub.ts). Errors are `{"error": …}` with Mastodon's status.
import type { BearerAuth } from '../../http/auth.js';
import type { Request } from '../../http/request.js';
import { json } from '../../http/respond.js';
import { PUBLIC, route, type EventSink, type Reply, type Route } from '../../http/types.js';
import type { Logger } from '../../log.js';
import type { StreamAudienceStore } from '../../store/stream-audience.js';
import { SSE_PATHS, StreamError, type Subscription } from './channels.js';
import { clientIdentity, type StreamClient, type StreamHub } from './hub.js';
import { authenticateStream, streamingToken, subscribe } from './session.js';

class SseClient implements StreamClient {
  readonly subs = new Map<string, Subscription>();
  readonly accountId: string;
  readonly userId: string;
  readonly tokenId: string;
  readonly appId: string;
  readonly scopes: readonly string[];

  constructor(
    private readonly sink: EventSink,
    id: ReturnType<typeof clientIdentity>,
  ) {
    this.accountId = id.accountId;
    this.userId = id.userId;
    this.tokenId = id.tokenId;
    this.appId = id.appId;
    this.scopes = id.scopes;
  }

  // No payload (filters_changed) is written `data: undefined`, as Mastodon's streaming server writes it.
  send(_stream: readonly string[], event: string, payload: string | undefined): void {
    this.sink.write(`event: ${event}\ndata: ${payload}\n\n`);
  }

  heartbeat(): void {
    this.sink.write(':thump\n');
  }

  close(): void {
    this.sink.end();
  }
}

const first = (v: unknown) => (Array.isArray(v) ? v[0] : v);

export function streamingRoutes(d: {
  readonly hub: StreamHub;
  readonly bearer: BearerAuth;
  readonly audience: StreamAudienceStore;
  readonly log: Logger;
}): Route[] {
  const open = async (req: Request, channel: string): Promise<Reply> => {
    try {
      const accessToken = first(req.query['access_token']);
      const t = await authenticateStream(
        d.bearer,
        streamingToken({ authorization: req.headers['authorization'], accessToken: typeof accessToken === 'string' ? accessToken : undefined }),
      );
      const id = clientIdentity(t);
      const sub = await subscribe(d.audience, id.accountId, id.scopes, channel, req.query);
      return {
        status: 200,
        headers: { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store' },
        body: {
          kind: 'events',
          open: (sink) => {
            const c = new SseClient(sink, id);
            c.subs.set(sub.key, sub);
            d.hub.add(c);
            sink.onClose(() => d.hub.remove(c));
          },
        },
      };
    } catch (e) {
      if (e instanceof StreamError) return json(e.status, { error: e.message });
      throw e;
    }
  };
  return [
    route({
      method: 'GET',
      path: '/api/v1/streaming/health',
      auth: PUBLIC,
      // OK while this node hears the event channel; while its listener reconnects, streams may miss events.
      handler: () =>
        d.hub.listening
          ? { status: 200, headers: { 'Content-Type': 'text/plain' }, body: 'OK' }
          : { status: 503, headers: { 'Content-Type': 'text/plain' }, body: 'Reconnecting to the event channel' },
    }),
    ...Object.entries(SSE_PATHS).map(([path, channel]) =>
      route({
        method: 'GET',
        path,
        // The stream reads its token itself: from the header, or the access_token parameter browsers must use.
        auth: PUBLIC,
        handler: (req) => open(req, channel),
      }),
    ),
  ];
}
