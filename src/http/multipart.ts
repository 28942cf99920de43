// multipart/form-data (RFC 7578), decoded while it arrives (busboy): file parts stream to temporary files (0600 in a
// 0700 directory) so an upload never sits in memory; text fields stay in memory under small caps. Media uploads
// and the clients' multipart account updates arrive this way. Whoever reads a body must discard() it at the end:
// that removes every temporary file not moved away by the handler.
import { createWriteStream, type WriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import busboy, { type Busboy } from 'busboy';
import { tempPath } from '../media/temp-files.js';
import { guard } from './guard.js';
import { assignParam, parseUrlEncoded, type Params } from './params.js';

const MAX_PARTS = 1000;
const MAX_FILES = 16;
/** Text fields together (a status, a description, profile fields): far above any real form, far below memory trouble. */
export const MAX_TEXT_FIELD_BYTES = 1024 * 1024;
/** The first bytes of each file are kept in memory: enough to sniff the type and an image's size (EXIF comes first). */
export const HEAD_BYTES = 64 * 1024;

export class MultipartError extends Error {
  constructor(
    message: string,
    readonly tooLarge = false,
  ) {
    super(message);
  }
}

/** The boundary parameter, or null when there is none or it is longer than RFC 2046's 70 characters. */
export function boundaryOf(contentType: string): string | null {
  const m = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;"]{1,70}))\s*(?:;|$)/i.exec(contentType);
  return m ? (m[1] ?? m[2] ?? null) : null;
}

/**
 * A part's name as a parameter key: busboy hands over undefined for a part without one (or with `name=""`), and a
 * NUL has no place in a form's names. null: the body is refused.
 */
function partName(name: string | undefined): string | null {
  return typeof name === 'string' && name.length > 0 && !name.includes('\0') ? name : null;
}

interface OpenFile {
  readonly out: WriteStream;
  closed: boolean;
}

/**
 * One multipart body being decoded. write() each chunk (false: wait for drain()), end() after the last;
 * `done` is called once with the fields and files, or the reason the body is refused.
 */
export class MultipartReader {
  private readonly bb: Busboy;
  private readonly params: Params = parseUrlEncoded('');
  private readonly paths: string[] = [];
  private readonly open = new Set<OpenFile>();
  /** Text parts sent as files (no filename) still arriving: the parser may close before their last bytes are read. */
  private textParts = 0;
  private fieldBytes = 0;
  private parsed = false;
  private settled = false;
  private discarded = false;

  constructor(
    contentType: string,
    private readonly tempDir: string,
    private readonly done: (r: { ok: true; params: Params } | { ok: false; error: unknown }) => void,
    /** Whether the route takes files at all: where it does not, a file part refuses the body. */
    private readonly takesFiles = true,
  ) {
    if (!boundaryOf(contentType)) throw new MultipartError('no boundary, or a boundary over 70 characters');
    try {
      this.bb = busboy({
        headers: { 'content-type': contentType },
        defParamCharset: 'utf8',
        limits: { parts: MAX_PARTS, files: MAX_FILES, fieldSize: MAX_TEXT_FIELD_BYTES, headerPairs: 64 },
      });
    } catch {
      // busboy reads the header by RFC 2045's grammar: an unquoted boundary with a special character is no boundary.
      throw new MultipartError('a Content-Type busboy cannot read');
    }
    this.bb.on(
      'field',
      this.on((name: string | undefined, value: string | undefined, info: busboy.FieldInfo) => {
        const key = partName(name);
        if (key === null) return this.fail(new MultipartError('a part without a name'));
        // busboy hands over undefined for a charset it has no decoder for.
        if (typeof value !== 'string') return this.fail(new MultipartError(`a text part in an unknown charset`));
        this.fieldBytes += value.length;
        if (info.valueTruncated || this.fieldBytes > MAX_TEXT_FIELD_BYTES) return this.fail(new MultipartError('text fields too large', true));
        assignParam(this.params, key, value);
      }),
    );
    this.bb.on(
      'file',
      this.on((name: string | undefined, stream: NodeJS.ReadableStream, info: busboy.FileInfo) => {
        // A part cut short (the client left, the body ended early) errors its stream; the parser reports the same
        // failure once, and an unheard stream error would end the process.
        stream.on('error', () => undefined);
        if (this.settled) return void stream.resume();
        const key = partName(name);
        if (key === null) {
          stream.resume();
          return this.fail(new MultipartError('a part without a name'));
        }
        // A part without a filename is a text field whatever its type, as it was before busboy (and in Rack).
        if (info.filename === undefined) return this.textPart(key, stream);
        const refusal = !this.takesFiles ? 'this endpoint takes no files' : info.filename.includes('\0') ? 'a file name with a NUL' : null;
        if (refusal !== null) {
          stream.resume();
          return this.fail(new MultipartError(refusal));
        }
        this.filePart(key, stream, info.filename, info.mimeType);
      }),
    );
    this.bb.on(
      'partsLimit',
      this.on(() => this.fail(new MultipartError('too many parts'))),
    );
    this.bb.on(
      'filesLimit',
      this.on(() => this.fail(new MultipartError('too many files'))),
    );
    this.bb.on(
      'fieldsLimit',
      this.on(() => this.fail(new MultipartError('too many fields'))),
    );
    this.bb.on(
      'error',
      this.on((e: Error) => this.fail(new MultipartError(e.message.replace(/^Malformed part header$/, 'malformed part headers')))),
    );
    this.bb.on(
      'close',
      this.on(() => {
        this.parsed = true;
        this.maybeDone();
      }),
    );
  }

  /** Feeds bytes (copied already: uWS reuses its chunk memory); false when busboy wants drain() first. */
  write(chunk: Buffer): boolean {
    if (this.settled) return true;
    return this.bb.write(chunk);
  }

  onDrain(fn: () => void): void {
    this.bb.once(
      'drain',
      guard(fn, (e) => this.fail(e)),
    );
  }

  end(): void {
    if (!this.settled) this.bb.end();
  }

  /** Stops decoding and removes every temporary file still where it was written. Idempotent. */
  discard(): void {
    if (this.discarded) return;
    this.discarded = true;
    this.settled = true;
    this.bb.removeAllListeners('drain');
    this.bb.destroy();
    const paths = this.paths.splice(0);
    const open = [...this.open];
    // A stream still open is destroyed first, so the file is not recreated by a late write after its removal.
    void Promise.all(open.map((f) => (f.closed ? undefined : new Promise<void>((r) => f.out.destroy().once('close', () => r()))))).then(() =>
      Promise.all(paths.map((p) => rm(p, { force: true }))),
    );
  }

  private textPart(name: string, stream: NodeJS.ReadableStream): void {
    const parts: Buffer[] = [];
    this.textParts++;
    stream.on(
      'data',
      this.on((b: Buffer) => {
        this.fieldBytes += b.length;
        if (this.fieldBytes > MAX_TEXT_FIELD_BYTES) return this.fail(new MultipartError('text fields too large', true));
        parts.push(b);
      }),
    );
    stream.on(
      'end',
      this.on(() => {
        this.textParts--;
        if (this.settled) return;
        assignParam(this.params, name, Buffer.concat(parts).toString('utf8'));
        this.maybeDone();
      }),
    );
  }

  private filePart(name: string, stream: NodeJS.ReadableStream, filename: string, contentType: string): void {
    const file = tempPath(this.tempDir, '.upload');
    this.paths.push(file);
    const out = createWriteStream(file, { mode: 0o600, flags: 'wx' });
    const entry: OpenFile = { out, closed: false };
    this.open.add(entry);
    let head = Buffer.alloc(0);
    let size = 0;
    stream.on(
      'data',
      this.on((b: Buffer) => {
        size += b.length;
        if (head.length < HEAD_BYTES) head = Buffer.concat([head, b.subarray(0, HEAD_BYTES - head.length)]);
      }),
    );
    stream.pipe(out);
    out.on(
      'error',
      this.on((e: Error) => this.fail(e)),
    );
    out.on(
      'close',
      this.on(() => {
        entry.closed = true;
        this.open.delete(entry);
        if (this.settled) return;
        assignParam(this.params, name, { kind: 'file', filename, contentType: contentType || 'application/octet-stream', path: file, size, head });
        this.maybeDone();
      }),
    );
  }

  /**
   * A listener for busboy or a part's stream: it runs inside busboy's write(), on uWS's stack, so a throw there
   * becomes this body's refusal instead of an uncaught exception.
   */
  private readonly on = <A extends unknown[]>(fn: (...args: A) => void): ((...args: A) => void) => guard(fn, (e) => this.fail(e));

  private maybeDone(): void {
    if (this.settled || !this.parsed || this.open.size > 0 || this.textParts > 0) return;
    this.settled = true;
    this.done({ ok: true, params: this.params });
  }

  private fail(error: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.done({ ok: false, error });
  }
}
