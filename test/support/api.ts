// Client-API calls for tests that talk to several servers: JSON in, JSON out, with a member's bearer token, and
// the environment a federating test server needs on loopback.
import { parseJson } from '../../src/http/body.js';
import { registerApp, signIn, userToken } from './oauth.js';
import type { TestServer } from './server.js';

/** Servers that federate with each other over loopback, retrying deliveries quickly. */
export const FED_ENV = { BASE_URL: 'http://127.0.0.1:{port}', FEDERATION_ALLOW_PRIVATE: 'loopback', DELIVERY_RETRY_BASE_MS: '200' };

// biome-ignore lint/suspicious/noExplicitAny: API JSON, asserted field by field in the tests
export type Json = any;

/** A request body sent as it is, with its content type, where api() would otherwise send the value as JSON. */
export class RawBody {
  constructor(
    readonly data: string | Uint8Array,
    readonly type: string,
  ) {}
}

/** An application/x-www-form-urlencoded body, from fields or an already encoded string. */
export function form(fields: Record<string, string> | URLSearchParams | string): RawBody {
  return new RawBody(typeof fields === 'string' ? fields : new URLSearchParams(fields).toString(), 'application/x-www-form-urlencoded');
}

/** A body sent byte for byte (hand-written or malformed JSON, by default), with its content type. */
export function raw(data: string | Uint8Array, type = 'application/json'): RawBody {
  return new RawBody(data, type);
}

export interface ApiReply {
  readonly status: number;
  /** The parsed JSON (null for an empty answer). */
  readonly body: Json;
  readonly text: string;
  readonly headers: Headers;
  /** The Link header (paging), and the Content-Type. */
  readonly link: string | null;
  readonly type: string | null;
}

/**
 * A call with a member's bearer token (none if undefined or empty). The body goes as JSON, unless it is a RawBody
 * (form(), raw()); `headers` are sent besides (Idempotency-Key …).
 */
export async function api(
  base: string,
  token: string | undefined,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<ApiReply> {
  const h: Record<string, string> = { ...headers, ...(token ? { Authorization: `Bearer ${token}` } : {}) };
  let payload: string | Uint8Array | undefined;
  if (body instanceof RawBody) {
    h['Content-Type'] = body.type;
    payload = body.data;
  } else if (body !== undefined) {
    h['Content-Type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  const res = await fetch(base + path, { method, headers: h, body: payload });
  const text = await res.text();
  return {
    status: res.status,
    // As a 64-bit client reads it: an id Mastodon sends as a number (most_recent_notification_id) keeps its digits,
    // as a string; a test of the JSON type reads `text`.
    body: text ? parseJson(text) : null,
    text,
    headers: res.headers,
    link: res.headers.get('link'),
    type: res.headers.get('content-type'),
  };
}

/** A token (read write follow, unless other scopes are named) for the server's first admin, through the authorization-code flow. */
export async function adminToken(s: TestServer, scopes = 'read write follow'): Promise<string> {
  const jar = await signIn(s.url, 'admin', s.app.firstAdmin!.password);
  return userToken(s.url, jar, await registerApp(s.url, { scopes }), scopes);
}
