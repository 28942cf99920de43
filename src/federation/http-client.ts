/**
 * The one outbound HTTP client: every remote fetch and every delivery goes through it. It refuses URLs and
 * addresses the SSRF guard forbids, checks the address a name resolves to and connects to exactly that address
 * (custom `lookup`, so DNS cannot change its answer between check and connect), caps time and bytes, and re-checks
 * and re-signs every redirect hop. Built on node:http rather than fetch because fetch cannot pin the address.
 */
import { untilAborted } from '../abort.js';
import http from 'node:http';
import https from 'node:https';
import { promises as dns, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import type { z } from 'zod';
import { isAllowedAddress, type AddressPolicy } from './address-guard.js';
import { FetchError, fetchError, statusError } from './fetch-errors.js';

export interface OutgoingRequest {
  method: 'GET' | 'POST';
  url: URL;
  /** Lowercase header names: host, user-agent, accept… as they will be sent. */
  headers: Record<string, string>;
  body?: Buffer;
}
/** Adds signature headers (Date, Digest, Signature, Host...) for one hop; called again for each redirect hop. */
export type Signer = (req: OutgoingRequest) => Promise<Record<string, string>> | Record<string, string>;
export type Resolver = (host: string) => Promise<{ address: string; family: 4 | 6 }[]>;

export interface HttpClientOptions {
  policy: AddressPolicy;
  timeoutMs: number;
  maxBytes: number;
  userAgent: string;
  /** Default 3. */
  maxRedirects?: number;
  /** Default: the system resolver (dns.lookup, all addresses). */
  resolver?: Resolver;
  /** The operator's federation policy: true refuses any request to that host (`host:port`), redirects included. */
  refusesHost?: (host: string) => Promise<boolean> | boolean;
}

export interface HttpResponse {
  status: number;
  /** Lowercase names; repeated headers joined with ', '. */
  headers: Record<string, string>;
  body: Buffer;
  /** The final URL, after redirects. */
  url: string;
}

export interface RequestInput {
  method: 'GET' | 'POST';
  url: string;
  headers?: Record<string, string>;
  body?: Buffer;
  sign?: Signer;
  timeoutMs?: number;
  maxBytes?: number;
  /** Refuse a redirect to another origin (collection pages: a CDN or another host must not answer for the origin). */
  sameOrigin?: boolean;
}

export interface GetJsonOptions {
  sign?: Signer;
  accept?: string;
  /** WebFinger: also accept application/jrd+json (and ask for it by default). */
  jrd?: boolean;
  timeoutMs?: number;
  maxBytes?: number;
}

export const ACTIVITY_ACCEPT = 'application/activity+json, application/ld+json; profile="https://www.w3.org/ns/activitystreams"';
export const JRD_ACCEPT = 'application/jrd+json, application/json';
const JSON_TYPES = new Set(['application/activity+json', 'application/ld+json', 'application/json']);
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

const systemResolver: Resolver = async (host) =>
  (await dns.lookup(host, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

type Hop = { kind: 'redirect'; location: string } | { kind: 'response'; response: HttpResponse };

export class HttpClient {
  private readonly resolver: Resolver;
  private readonly maxRedirects: number;

  constructor(private readonly opts: HttpClientOptions) {
    this.resolver = opts.resolver ?? systemResolver;
    this.maxRedirects = opts.maxRedirects ?? 3;
  }

  /**
   * One request; GET follows up to maxRedirects redirects (each target re-checked: scheme, SSRF, re-signed);
   * POST never follows redirects (a 3xx is returned as a response). Non-2xx statuses are returned, not thrown;
   * only transport-level problems throw FetchError.
   */
  async request(req: RequestInput): Promise<HttpResponse> {
    const maxBytes = req.maxBytes ?? this.opts.maxBytes;
    let url = parseTarget(req.url, undefined);
    const origin = url.origin;
    // One deadline for the whole call: every hop, the signer, and the body.
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), req.timeoutMs ?? this.opts.timeoutMs);
    try {
      for (let redirects = 0; ; redirects++) {
        const host = bareHost(url);
        // IP literals never reach `lookup`, so they are checked here.
        if (isIP(host) && !isAllowedAddress(host, this.opts.policy)) throw fetchError('forbidden_address', url.href, host);
        if (this.opts.refusesHost && (await this.opts.refusesHost(url.host.toLowerCase()))) throw fetchError('federation_policy', url.href, 'domain suspended');
        const headers = await untilAborted(this.headersFor(req, url), deadline.signal, () => fetchError('timeout', url.href));
        const hop = await this.hop(req.method, url, headers, req.body, maxBytes, deadline.signal);
        if (hop.kind === 'response') return hop.response;
        if (redirects >= this.maxRedirects) throw fetchError('too_many_redirects', url.href, `more than ${this.maxRedirects}`);
        url = parseTarget(hop.location, url);
        if (req.sameOrigin && url.origin !== origin) throw fetchError('cross_origin_redirect', url.href, `from ${origin}`);
      }
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * GET a JSON document, map non-2xx statuses to FetchError, check the media type, parse and validate it. `text` is
   * the document as received (for signed parts that must be kept in their original form).
   */
  async getJson<T>(url: string, schema: z.ZodType<T>, opts: GetJsonOptions = {}): Promise<{ value: T; url: string; text: string }> {
    const accept = opts.accept ?? (opts.jrd ? JRD_ACCEPT : ACTIVITY_ACCEPT);
    const res = await this.request({
      method: 'GET',
      url,
      headers: { accept },
      ...(opts.sign && { sign: opts.sign }),
      ...(opts.timeoutMs !== undefined && { timeoutMs: opts.timeoutMs }),
      ...(opts.maxBytes !== undefined && { maxBytes: opts.maxBytes }),
    });
    if (res.status < 200 || res.status > 299) throw statusError(res.status, res.url, res.headers['retry-after']);
    const type = (res.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (!JSON_TYPES.has(type) && !(opts.jrd && type === 'application/jrd+json')) {
      throw fetchError('bad_content_type', res.url, type || 'no content-type');
    }
    const text = res.body.toString('utf8').replace(/^\uFEFF/, '');
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw fetchError('invalid_json', res.url);
    }
    const result = schema.safeParse(parsed);
    if (!result.success) {
      const issue = result.error.issues[0];
      const path = issue?.path.map(String).join('.') || '(root)';
      throw fetchError('invalid_document', res.url, `${path}: ${issue?.message ?? 'invalid'}`);
    }
    return { value: result.data, url: res.url, text };
  }

  private async headersFor(req: RequestInput, url: URL): Promise<Record<string, string>> {
    const headers: Record<string, string> = { 'user-agent': this.opts.userAgent, 'accept-encoding': 'gzip, deflate, br' };
    for (const [k, v] of Object.entries(req.headers ?? {})) headers[k.toLowerCase()] = v;
    headers.host = url.host;
    if (req.body) headers['content-length'] = String(req.body.length);
    if (req.sign) {
      const signed = await req.sign({ method: req.method, url: new URL(url.href), headers: { ...headers }, ...(req.body && { body: req.body }) });
      for (const [k, v] of Object.entries(signed)) headers[k.toLowerCase()] = v;
    }
    return headers;
  }

  /** The addresses `host` resolves to, refused when any of them is forbidden (a rebinding name may mix them). */
  private async resolveAllowed(host: string, href: string): Promise<{ address: string; family: 4 | 6 }> {
    let addresses: { address: string; family: 4 | 6 }[];
    try {
      addresses = await this.resolver(host);
    } catch (err) {
      throw fetchError('dns_failure', href, errorCode(err));
    }
    const first = addresses[0];
    if (!first) throw fetchError('dns_failure', href, 'no addresses');
    const bad = addresses.find((a) => !isAllowedAddress(a.address, this.opts.policy));
    if (bad) throw fetchError('forbidden_address', href, `${host} resolves to ${bad.address}`);
    return first;
  }

  private hop(
    method: 'GET' | 'POST',
    url: URL,
    headers: Record<string, string>,
    body: Buffer | undefined,
    maxBytes: number,
    signal: AbortSignal,
  ): Promise<Hop> {
    const href = url.href;
    return new Promise<Hop>((resolve, reject) => {
      let settled = false;
      let req: http.ClientRequest | undefined;
      let decoder: zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress | undefined;
      let guardError: FetchError | undefined;
      const finish = (err: unknown, hop?: Hop): void => {
        if (settled) return;
        settled = true;
        signal.removeEventListener('abort', onAbort);
        if (hop) return resolve(hop);
        // Destroying the request closes the socket: the peer sees us stop reading.
        decoder?.destroy();
        req?.destroy();
        reject(err);
      };
      const onAbort = (): void => finish(fetchError('timeout', href));
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });

      const lookup = (
        hostname: string,
        options: LookupOptions,
        callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
      ): void => {
        this.resolveAllowed(hostname, href).then(
          (a) => (options.all ? callback(null, [a]) : callback(null, a.address, a.family)),
          (err: FetchError) => {
            guardError = err;
            callback(err, '');
          },
        );
      };

      try {
        req = (url.protocol === 'https:' ? https : http).request({
          method,
          hostname: bareHost(url),
          port: url.port || undefined,
          path: url.pathname + url.search,
          headers,
          agent: false, // a fresh connection per hop, so `lookup` runs for every connection
          lookup,
        });
      } catch (err) {
        // Invalid header values: a caller's bug, not a transport failure.
        settled = true;
        signal.removeEventListener('abort', onAbort);
        return reject(err);
      }
      req.on('error', (err) => finish(err instanceof FetchError ? err : (guardError ?? fetchError('network', href, errorCode(err)))));
      req.on('response', (res) => {
        const status = res.statusCode ?? 0;
        const resHeaders = flattenHeaders(res.headers);
        if (method === 'GET' && REDIRECT_STATUSES.has(status) && resHeaders.location !== undefined) {
          finish(null, { kind: 'redirect', location: resHeaders.location });
          req?.destroy(); // the redirect's body is of no interest
          return;
        }
        const declared = resHeaders['content-length'];
        if (declared !== undefined && Number(declared) > maxBytes) return finish(fetchError('too_large', href, `content-length ${declared}`));

        const encoding = (resHeaders['content-encoding'] ?? 'identity').trim().toLowerCase();
        if (encoding === 'gzip' || encoding === 'x-gzip') decoder = zlib.createGunzip();
        else if (encoding === 'deflate') decoder = zlib.createInflate();
        else if (encoding === 'br') decoder = zlib.createBrotliDecompress();
        else if (encoding !== 'identity' && encoding !== '') return finish(fetchError('bad_content_type', href, `content-encoding ${encoding}`));

        // Both the bytes on the wire and the decoded bytes are capped (a small gzip can decode to gigabytes).
        let wire = 0;
        let size = 0;
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => {
          wire += chunk.length;
          if (wire > maxBytes) finish(fetchError('too_large', href));
        });
        res.on('error', (err) => finish(fetchError('network', href, errorCode(err))));
        res.on('close', () => {
          if (!res.complete) finish(fetchError('network', href, 'connection closed before the end of the body'));
        });
        const out: Readable = decoder ? res.pipe(decoder) : res;
        out.on('data', (chunk: Buffer) => {
          if (settled) return;
          size += chunk.length;
          if (size > maxBytes) return finish(fetchError('too_large', href));
          chunks.push(chunk);
        });
        out.on('error', (err) => finish(fetchError('network', href, `content-encoding ${encoding}: ${errorCode(err)}`)));
        out.on('end', () => finish(null, { kind: 'response', response: { status, headers: resHeaders, body: Buffer.concat(chunks, size), url: href } }));
      });
      req.end(body);
    });
  }
}

/** Parses a request URL (or a redirect's Location against the current URL) and applies the URL rules. */
function parseTarget(raw: string, base: URL | undefined): URL {
  const invalid = base ? 'bad_redirect' : 'bad_url';
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    throw fetchError(invalid, base ? base.href : raw, base ? `Location ${raw.slice(0, 200)}` : undefined);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw fetchError(invalid, url.href, `scheme ${url.protocol}`);
  if (url.username || url.password) {
    url.username = '';
    url.password = ''; // never echo credentials into errors and logs
    throw fetchError('bad_url', url.href, 'credentials in URL');
  }
  if (!url.hostname) throw fetchError(invalid, url.href, 'no host');
  url.hash = '';
  return url;
}

/** The URL's host as the socket needs it: IPv6 literals without their brackets. */
function bareHost(url: URL): string {
  const h = url.hostname;
  return h.startsWith('[') && h.endsWith(']') ? h.slice(1, -1) : h;
}

function flattenHeaders(raw: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) {
    if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

function errorCode(err: unknown): string {
  if (err && typeof err === 'object') {
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    const message = (err as { message?: unknown }).message;
    if (typeof message === 'string') return message;
  }
  return String(err);
}
