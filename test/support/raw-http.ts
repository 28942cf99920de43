// Raw HTTP/1.1 over a socket, for what fetch cannot send: duplicate headers, bodies cut short, malformed requests.
import assert from 'node:assert/strict';
import net from 'node:net';

export interface RawOptions {
  /** Close our side as soon as the request is written (a client that leaves mid-request). */
  readonly destroyAfterWrite?: boolean;
  /** The server must close the connection: no close within timeoutMs is an error even if it answered. */
  readonly requireClose?: boolean;
  /** Resolve once a whole answer framed by Content-Length has come, closed or not (an early answer keeps reading). */
  readonly untilAnswered?: boolean;
  readonly timeoutMs?: number;
}

/**
 * Writes the request (in pieces, if given several) on a connection of its own and resolves with everything the
 * server sent until the connection closed, or, without requireClose, whatever it had answered by timeoutMs.
 */
export function rawExchange(base: string, request: string | readonly string[], o: RawOptions = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = net.connect(Number(new URL(base).port), '127.0.0.1');
    let data = '';
    const timer = setTimeout(() => {
      sock.destroy();
      if (data && !o.requireClose) resolve(data);
      else reject(new Error(data ? `no close after: ${data}` : 'no answer'));
    }, o.timeoutMs ?? 5_000);
    const done = (): void => {
      clearTimeout(timer);
      resolve(data);
    };
    sock.on('data', (d) => {
      data += d.toString();
      if (o.untilAnswered && answered(data)) {
        sock.destroy();
        done();
      }
    });
    sock.on('error', done);
    sock.on('close', done);
    sock.on('connect', () => {
      for (const piece of typeof request === 'string' ? [request] : request) if (!sock.destroyed) sock.write(piece);
      if (o.destroyAfterWrite) sock.destroy();
    });
  });
}

/**
 * The body bytes an HTTP/1.1 client can hand on so far: with a Content-Length, all that arrived; chunked, only the
 * chunks complete with their closing CRLF (a parser must see that CRLF before it ends the chunk).
 */
export function deliverable(raw: Buffer): { headers: string; body: string } | undefined {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const headers = raw.subarray(0, end).toString('latin1');
  if (!/^transfer-encoding:\s*chunked/im.test(headers)) return { headers, body: raw.subarray(end + 4).toString('utf8') };
  const parts: Buffer[] = [];
  let at = end + 4;
  for (;;) {
    const lineEnd = raw.indexOf('\r\n', at);
    if (lineEnd < 0) break;
    const size = Number.parseInt(raw.subarray(at, lineEnd).toString('latin1'), 16);
    assert.ok(Number.isInteger(size), `a chunk size line: ${JSON.stringify(raw.subarray(at, lineEnd).toString('latin1'))}`);
    const dataEnd = lineEnd + 2 + size;
    if (raw.length < dataEnd + 2) break;
    assert.equal(raw.subarray(dataEnd, dataEnd + 2).toString('latin1'), '\r\n', 'a chunk ends with CRLF');
    parts.push(raw.subarray(lineEnd + 2, dataEnd));
    at = dataEnd + 2;
  }
  return { headers, body: Buffer.concat(parts).toString('utf8') };
}

/** A whole answer framed by Content-Length: its head and that many bytes after it. */
export function answered(data: string): boolean {
  const end = data.indexOf('\r\n\r\n');
  const length = /\r\ncontent-length: *(\d+)\r\n/i.exec(data.slice(0, end + 2));
  return end >= 0 && length !== null && Buffer.byteLength(data.slice(end + 4)) >= Number(length[1]);
}
