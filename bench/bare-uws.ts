// The floor: a bare uWebSockets.js server in its own process, with one JSON route and, for the streaming bench's
// ratio, a WebSocket endpoint (`/ws?topic=1` joins topic `bench` on open) and `POST /publish`, which publishes its body
// to the topic with one `app.publish` and answers the time it did so (performance.timeOrigin + now, the clock the
// bench's clients use). Prints its port on stdout; exits when the parent's IPC channel closes (the parent died) or on
// SIGTERM/SIGINT.
import { nativeUws, uws } from '../src/http/uws.js';

if (!nativeUws) {
  process.stderr.write('uWebSockets.js native binding did not load: a benchmark on the JS fallback is meaningless\n');
  process.exit(1);
}

const TOPIC = 'bench';

const app = uws
  .App()
  .get('/bare', (res) => {
    res.writeHeader('Content-Type', 'application/json').end('{"ok":true}');
  })
  // The same socket settings as Stoa's streaming endpoint (src/api/streaming/websocket.ts, its defaults).
  .ws<{ topic: boolean }>('/ws', {
    maxPayloadLength: 4096,
    idleTimeout: 60,
    sendPingsAutomatically: true,
    maxBackpressure: 1024 * 1024,
    closeOnBackpressureLimit: 1,
    upgrade: (res, req, context) => {
      const topic = /(?:^|&)topic=1(?:&|$)/.test(req.getQuery() ?? '');
      res.upgrade({ topic }, req.getHeader('sec-websocket-key'), req.getHeader('sec-websocket-protocol'), req.getHeader('sec-websocket-extensions'), context);
    },
    open: (ws) => {
      if (ws.getUserData().topic) ws.subscribe(TOPIC);
    },
  })
  .post('/publish', (res) => {
    const chunks: Buffer[] = [];
    let aborted = false;
    res.onAborted(() => {
      aborted = true;
    });
    res.onData((chunk, last) => {
      chunks.push(Buffer.from(chunk.slice(0)));
      if (!last || aborted) return;
      const frame = Buffer.concat(chunks).toString('utf8');
      const at = performance.timeOrigin + performance.now();
      app.publish(TOPIC, frame, false);
      res.cork(() => res.writeHeader('Content-Type', 'application/json').end(JSON.stringify({ at })));
    });
  });

app.listen('127.0.0.1', 0, (socket) => {
  if (!socket) {
    process.stderr.write('bare uWS: cannot listen on 127.0.0.1\n');
    process.exit(1);
  }
  process.stdout.write(`${uws.us_socket_local_port(socket)}\n`);
});

const exit = () => process.exit(0);
process.on('SIGTERM', exit);
process.on('SIGINT', exit);
process.on('disconnect', exit);
