// Streaming as one part for app.ts to start: the node's hub of clients, the fan-out fed by the event channel, the
// WebSocket endpoint and the SSE routes.
import type { BearerAuth } from '../../http/auth.js';
import type { Route } from '../../http/types.js';
import type { WebSocketBehavior } from '../../http/uws.js';
import type { Logger } from '../../log.js';
import type { UserStore } from '../../store/users.js';
import { StreamFanout, type FanoutDeps } from './fanout.js';
import { StreamHub } from './hub.js';
import { streamingRoutes } from './sse.js';
import { streamingWebSocket } from './websocket.js';

export interface Streaming {
  readonly hub: StreamHub;
  readonly fanout: StreamFanout;
  readonly websockets: readonly { readonly pattern: string; readonly behavior: WebSocketBehavior<unknown> }[];
  readonly routes: readonly Route[];
}

export function createStreaming(
  d: FanoutDeps & { readonly users: UserStore; readonly bearer: BearerAuth; readonly maxBuffered: number; readonly heartbeatMs: number; readonly log: Logger },
): Streaming {
  const hub = new StreamHub(async (userId) => {
    const u = await d.users.byUserId(userId);
    return !u || u.disabled || u.suspended || !u.approved;
  }, d.heartbeatMs);
  const fanout = new StreamFanout(hub, d, d.log);
  const behavior = streamingWebSocket({ hub, bearer: d.bearer, audience: d.audience, maxBuffered: d.maxBuffered, log: d.log }) as WebSocketBehavior<unknown>;
  return {
    hub,
    fanout,
    // Clients write the base URL with or without a trailing slash.
    websockets: [
      { pattern: '/api/v1/streaming', behavior },
      { pattern: '/api/v1/streaming/', behavior },
    ],
    routes: streamingRoutes({ hub, bearer: d.bearer, audience: d.audience, log: d.log }),
  };
}
