// The floor: a bare uWebSockets.js server with one JSON route and nothing else, in its own process. Prints its
// port on stdout; exits when the parent's IPC channel closes (the parent died) or on SIGTERM/SIGINT.
import { nativeUws, uws } from '../src/http/uws.js';

if (!nativeUws) {
  process.stderr.write('uWebSockets.js native binding did not load: a benchmark on the JS fallback is meaningless\n');
  process.exit(1);
}

const app = uws.App().get('/bare', (res) => {
  res.writeHeader('Content-Type', 'application/json').end('{"ok":true}');
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
