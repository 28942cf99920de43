// multipart/form-data decoding of a fully buffered, size-limited body (RFC 7578). Media uploads and the clients'
// multipart account updates arrive this way.
import { assignParam, parseUrlEncoded, type Params } from './params.js';

const MAX_PARTS = 1000;
const MAX_PART_HEADER_BYTES = 8 * 1024;
const CRLFCRLF = Buffer.from('\r\n\r\n');

export class MultipartError extends Error {}

export function boundaryOf(contentType: string): string | null {
  const m = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;]{1,70}))/i.exec(contentType);
  return m ? (m[1] ?? m[2] ?? null) : null;
}

export function parseMultipart(body: Buffer, boundary: string): Params {
  const out: Params = parseUrlEncoded('');
  const delimiter = Buffer.from(`--${boundary}`);
  let pos = body.indexOf(delimiter);
  if (pos === -1) throw new MultipartError('no opening boundary');
  let parts = 0;
  for (;;) {
    pos += delimiter.length;
    // `--` after a delimiter closes the body.
    if (body[pos] === 0x2d && body[pos + 1] === 0x2d) return out;
    if (body[pos] !== 0x0d || body[pos + 1] !== 0x0a) throw new MultipartError('malformed boundary line');
    pos += 2;
    const headerEnd = body.indexOf(CRLFCRLF, pos);
    if (headerEnd === -1 || headerEnd - pos > MAX_PART_HEADER_BYTES) throw new MultipartError('malformed part headers');
    const headers = parsePartHeaders(body.toString('latin1', pos, headerEnd));
    const dataStart = headerEnd + 4;
    const next = body.indexOf(Buffer.concat([Buffer.from('\r\n'), delimiter]), dataStart);
    if (next === -1) throw new MultipartError('missing closing boundary');
    if (++parts > MAX_PARTS) throw new MultipartError('too many parts');
    const data = body.subarray(dataStart, next);
    const disposition = headers['content-disposition'] ?? '';
    const name = dispositionParam(disposition, 'name');
    if (name === null) throw new MultipartError('part without a name');
    const filename = dispositionParam(disposition, 'filename');
    if (filename !== null) {
      assignParam(out, name, {
        kind: 'file',
        filename,
        contentType: headers['content-type'] ?? 'application/octet-stream',
        data: Buffer.from(data), // detach from the request buffer
      });
    } else {
      assignParam(out, name, data.toString('utf8'));
    }
    pos = next + 2;
  }
}

function parsePartHeaders(block: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of block.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return headers;
}

function dispositionParam(disposition: string, param: string): string | null {
  const re = new RegExp(`;\\s*${param}=(?:"((?:[^"\\\\]|\\\\.)*)"|([^;\\s]+))`, 'i');
  const m = re.exec(disposition);
  if (!m) return null;
  // Field names and file names are UTF-8 sent as raw bytes; we decoded the header block as latin1.
  const raw = m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : (m[2] ?? '');
  return Buffer.from(raw, 'latin1').toString('utf8');
}
