// WebSocket frames as Mastodon sends them: `{"stream":[…],"event":…,"payload":"<JSON text>"}`, built once per stream
// and payload, whether written socket by socket (websocket.ts) or published to a topic (fanout.ts, topics.ts).

/**
 * The last frames built, by stream and event: a fan-out sends one payload to thousands of sockets, and escaping a
 * status's JSON into each frame anew cost more than the sends. Payloads compare by reference first, so a hit is cheap.
 */
const recentFrames = new Map<string, { readonly payload: string | undefined; readonly frame: string }>();
const RECENT_FRAMES_MAX = 64;

// No payload (filters_changed): no `payload` key, as Mastodon's streaming server sends it.
export function frameOf(stream: readonly string[], event: string, payload: string | undefined): string {
  const key = `${event}\u0000${stream.join('\u0000')}`;
  const hit = recentFrames.get(key);
  if (hit !== undefined && hit.payload === payload) return hit.frame;
  const frame = JSON.stringify({ stream, event, payload });
  if (hit === undefined && recentFrames.size >= RECENT_FRAMES_MAX) recentFrames.clear();
  recentFrames.set(key, { payload, frame });
  return frame;
}
