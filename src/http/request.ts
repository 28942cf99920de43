// A request as handlers see it: everything copied out of uWS's HttpRequest synchronously (it is only valid until
// the first await), with query and cookies decoded lazily so routes that don't need them pay nothing.
import { parseCookies } from './cookies.js';
import { parseUrlEncoded, type Params, type UploadedFile } from './params.js';

export class Request {
  /** Parsed body: Params for forms and multipart, any JSON value for JSON; undefined for routes without a body. */
  body: unknown = undefined;
  /** The body bytes exactly as received (kept for signatures and byte-for-byte storage). */
  rawBody: Buffer | undefined = undefined;
  /** Set by the route's params after matching. */
  params: Record<string, string> = {};
  private queryCache: Params | undefined;
  private cookieCache: Record<string, string> | undefined;
  private ipCache: string | undefined;

  constructor(
    readonly id: string,
    readonly method: string,
    readonly path: string,
    readonly rawQuery: string,
    readonly headers: Readonly<Record<string, string>>,
    private readonly remoteAddress: () => string,
  ) {}

  /**
   * The client's address, read on first use (reading it costs about as much as a small route). The front end reads
   * it up front for every request that can change state; on a GET it is '' if the client has already gone.
   */
  get ip(): string {
    return (this.ipCache ??= this.remoteAddress());
  }

  get query(): Params {
    return (this.queryCache ??= parseUrlEncoded(this.rawQuery));
  }

  get cookies(): Record<string, string> {
    return (this.cookieCache ??= parseCookies(this.headers['cookie']));
  }

  /** The body as form fields: a non-object body (JSON null, an array, a number) has none. */
  get fields(): Record<string, unknown> {
    const b = this.body;
    return typeof b === 'object' && b !== null && !Array.isArray(b) ? (b as Record<string, unknown>) : {};
  }
}

export type { Params, UploadedFile };
