// The shapes shared by the front end and every route module.
import type { Request } from './request.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export type HeaderValue = string | readonly string[];

/** A file as a response body: where the bytes are and which of them to send (http/file-body.ts). */
export interface FileBody {
  readonly kind: 'file';
  readonly path: string;
  /** First and last byte to send, inclusive. */
  readonly start: number;
  readonly end: number;
}

/** What a handler returns; server.ts writes it (corked) unless the client has gone away. */
export interface Reply {
  readonly status: number;
  readonly headers?: Readonly<Record<string, HeaderValue>>;
  readonly body?: string | Buffer | FileBody;
}

export type Handler = (req: Request) => Reply | Promise<Reply>;

export interface Route {
  readonly method: Method;
  /** `/api/v1/accounts/:id` style; parameters are whole segments. */
  readonly path: string;
  /**
   * Whether a request body is read and parsed (JSON, url-encoded or multipart). 'raw': a JSON body is read but not
   * parsed here (req.rawBody only): the handler sends the bytes to the pool, which parses them off the event loop.
   */
  readonly body?: boolean | 'raw';
  /** Overrides the configured byte limit for this route's body. */
  readonly maxBodyBytes?: number;
  readonly handler: Handler;
}
