// WebSocket behaviours run on uWS's stack: a throw in one would end the process. Wrapped, a throw is logged and,
// while the socket is open, closes it with 1011 (an unexpected condition) so the client reconnects; a failed
// upgrade is answered 500.
import type { Logger } from '../log.js';
import { guard } from './guard.js';
import { answerInternalError } from './last-resort.js';
import type { WebSocket, WebSocketBehavior } from './uws.js';

export function guardedBehavior<T>(behavior: WebSocketBehavior<T>, log: Logger): WebSocketBehavior<T> {
  const out: WebSocketBehavior<T> = { ...behavior };
  const ending =
    (what: string) =>
    (e: unknown, [ws]: [WebSocket<T>, ...unknown[]]) => {
      log.error({ err: e }, `WebSocket ${what} failed`);
      try {
        ws.end(1011, 'Internal server error');
      } catch {
        // Closed already.
      }
    };
  const logging = (what: string) => (e: unknown) => log.error({ err: e }, `WebSocket ${what} failed`);
  const { upgrade, open, message, drain, ping, pong, subscription, close } = behavior;
  if (upgrade) {
    out.upgrade = guard(upgrade, (e, [res]) => {
      log.error({ err: e }, 'WebSocket upgrade failed');
      answerInternalError(res);
    });
  }
  if (open) out.open = guard(open, ending('open'));
  if (message) out.message = guard(message, ending('message'));
  if (drain) out.drain = guard(drain, ending('drain'));
  if (ping) out.ping = guard(ping, ending('ping'));
  if (pong) out.pong = guard(pong, ending('pong'));
  if (subscription) out.subscription = guard(subscription, logging('subscription'));
  if (close) out.close = guard(close, logging('close'));
  return out;
}
