// A hand-written ActivityPub peer on loopback, independent of Stoa's federation code (nothing from src/federation is
// imported; signatures are made and checked with node:crypto here), so that a shared misunderstanding of draft-cavage
// cannot make both sides agree. It serves actor documents and WebFinger, records every request, and signs POSTs to
// Stoa with knobs that break each part of the signature one at a time (for the rejection tests).
import http from 'node:http';
import { createHash, generateKeyPair, randomUUID, sign as rsaSign, verify as rsaVerify } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';

const AS_CONTEXT = 'https://www.w3.org/ns/activitystreams';
const SECURITY_CONTEXT = 'https://w3id.org/security/v1';
const AP_JSON = 'application/activity+json';

/** Where the actor's key is published: in the actor (`actor#main-key`, Mastodon), in an actor stub at
 *  `/users/x/main-key` (GoToSocial), or in a bare Key document at `/users/x/publickey` (Misskey). */
export type KeyDocumentStyle = 'actor' | 'gotosocial' | 'key';

export interface PeerActor {
  readonly name: string;
  /** The actor's id as its document states it (another origin when the actor is a forgery). */
  readonly id: string;
  readonly keyId: string;
  readonly inbox: string;
  readonly keyDocument: KeyDocumentStyle;
  displayName: string;
  locked: boolean;
  publicKeyPem: string;
  privateKeyPem: string;
  /** Every document of the actor answers 410. */
  gone: boolean;
  /** The actor's attachment array (profile fields, identity statements …), served as set. */
  attachment: unknown[];
  /** More properties of the actor document (summary, url, icon …), served as set; they override the defaults. */
  extra: Record<string, unknown>;
}

export interface ActorOptions {
  displayName?: string;
  locked?: boolean;
  keyDocument?: KeyDocumentStyle;
  /** The document claims an id, key and owner on this origin while being served here: a forgery. */
  claimOrigin?: string;
  attachment?: unknown[];
  extra?: Record<string, unknown>;
}

/** One request the peer answered. Header names are lower-case; repeated headers are joined with ', '. */
export interface PeerRequest {
  readonly method: string;
  /** Path and query as on the request line. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly rawBody: Buffer;
  /** The body parsed as JSON, or null. */
  readonly body: Record<string, unknown> | null;
}

export interface SignedPostOptions {
  /** The peer actor whose private key signs. */
  actor: string;
  /** Default: the actor's keyId. */
  keyId?: string;
  /** Default 'rsa-sha256'; written into the header as given. null leaves the parameter out. */
  algorithm?: string | null;
  /** The signed header list; default `(request-target) host date digest`. */
  headers?: readonly string[];
  /** Adds `created=` for a `(created)` pseudo-header: true for now, or the Unix time in seconds to state. */
  created?: boolean | number;
  /** Adds `expires=` (Unix time in seconds) for an `(expires)` pseudo-header. */
  expires?: number;
  /** Default now. */
  date?: Date;
  /** The Digest header sent and signed instead of the body's. null sends none. */
  digest?: string | null;
  /** Changes the body after signing; the Digest header is recomputed for the changed body (the signature is not). */
  tamperBody?: (signedBody: string) => string;
  /** The path signed in (request-target), when it should differ from the one posted to. */
  signedTarget?: string;
  /** Flips one byte of the signature. */
  corruptSignature?: boolean;
  /** Default 'signature': a Signature header; 'authorization': `Authorization: Signature …`. */
  form?: 'signature' | 'authorization';
  /** The Signature header value as given (null: no signature at all). Overrides everything above about it. */
  rawSignature?: string | null;
}

export interface PostResult {
  readonly status: number;
  readonly contentType: string;
  readonly body: unknown;
}

export interface FakePeer {
  readonly url: string;
  readonly host: string;
  addActor(name: string, opts?: ActorOptions): Promise<PeerActor>;
  actor(name: string): PeerActor;
  /** The actor document as the peer serves it now (for embedding in an Update). */
  document(name: string): Record<string, unknown>;
  /** A new key pair under the same keyId (as servers rotating `#main-key` do). */
  rotateKey(name: string): Promise<void>;
  /** From now on the actor's documents answer 410 Gone. */
  makeGone(name: string): void;
  /**
   * While on, GETs of any actor's outbox (`/users/x/outbox`) are recorded and never answered (until stop() cuts
   * them): a history fetch started then stays running. Off by default.
   */
  hangOutboxes(on: boolean): void;
  /** While on, GETs of the documents `serve` serves are recorded and never answered (as hangOutboxes). Off by default. */
  hangDocuments(on: boolean): void;
  /** A fresh activity id on this peer's origin. */
  newId(kind?: string): string;
  /** Serves `doc` (a Note, say) as JSON-LD at its id, which must be on this peer. */
  serve(doc: { id: string }): void;
  readonly requests: PeerRequest[];
  /** POSTs received, in order. */
  posts(): PeerRequest[];
  waitForPost(pred: (r: PeerRequest) => boolean, timeoutMs?: number): Promise<PeerRequest>;
  /** POSTs `activity` to `url`, signed as `opts.actor` (draft-cavage). */
  signedPost(url: string, activity: unknown, opts: SignedPostOptions): Promise<PostResult>;
  stop(): Promise<void>;
}

const generateRsa = promisify(generateKeyPair);

async function rsaKeyPair(): Promise<{ publicKeyPem: string; privateKeyPem: string }> {
  const { publicKey, privateKey } = await generateRsa('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return { publicKeyPem: publicKey, privateKeyPem: privateKey };
}

export function sha256Digest(body: Buffer | string): string {
  return 'SHA-256=' + createHash('sha256').update(body).digest('base64');
}

/** The draft-cavage signing string: one `name: value` line per signed header, in the order listed. */
export function signingString(
  names: readonly string[],
  method: string,
  target: string,
  headers: Readonly<Record<string, string | undefined>>,
  created?: number,
  expires?: number,
): string {
  return names
    .map((h) => {
      if (h === '(request-target)') return `(request-target): ${method.toLowerCase()} ${target}`;
      if (h === '(created)') return `(created): ${created}`;
      if (h === '(expires)') return `(expires): ${expires}`;
      const v = headers[h];
      if (v === undefined) throw new Error(`signed header ${h} is not on the request`);
      return `${h}: ${v}`;
    })
    .join('\n');
}

export interface ParsedSignature {
  readonly keyId: string;
  readonly algorithm: string | undefined;
  readonly headers: string[];
  readonly signature: Buffer;
}

export function parseSignature(value: string): ParsedSignature {
  const text = value.startsWith('Signature ') ? value.slice(10) : value;
  const params = new Map<string, string>();
  for (const m of text.matchAll(/([a-zA-Z]+)="([^"]*)"/g)) params.set(m[1]!, m[2]!);
  const keyId = params.get('keyId');
  const signature = params.get('signature');
  if (!keyId || !signature) throw new Error(`not a draft-cavage signature: ${value}`);
  return { keyId, algorithm: params.get('algorithm'), headers: (params.get('headers') ?? 'date').split(' '), signature: Buffer.from(signature, 'base64') };
}

/** Checks a request the peer received against a public key: the signature over its headers, and its Digest. */
export function verifyReceived(req: PeerRequest, publicKeyPem: string): { signature: ParsedSignature; signatureValid: boolean; digestValid: boolean } {
  const signature = parseSignature(req.headers['signature'] ?? '');
  const text = signingString(signature.headers, req.method, req.path, req.headers);
  return {
    signature,
    signatureValid: rsaVerify('sha256', Buffer.from(text), publicKeyPem, signature.signature),
    digestValid: req.headers['digest'] === sha256Digest(req.rawBody),
  };
}

function actorDocument(a: PeerActor): Record<string, unknown> {
  // Every URL is derived from the id, so a forged document is consistent in all but where it is served.
  const home = a.id;
  return {
    '@context': [AS_CONTEXT, SECURITY_CONTEXT],
    id: a.id,
    type: 'Person',
    preferredUsername: a.name,
    name: a.displayName,
    summary: '',
    url: `${home}/profile`,
    inbox: a.inbox,
    outbox: `${home}/outbox`,
    followers: `${home}/followers`,
    following: `${home}/following`,
    manuallyApprovesFollowers: a.locked,
    endpoints: { sharedInbox: `${new URL(home).origin}/inbox` },
    publicKey: { id: a.keyId, owner: a.id, publicKeyPem: a.publicKeyPem },
    attachment: a.attachment,
    ...a.extra,
  };
}

/** JSON text the peer writes exactly as given inside a document (for tests of documents kept in original form). */
export class RawText {
  constructor(readonly text: string) {}
}

function stringify(value: unknown): string {
  const raws: string[] = [];
  const text = JSON.stringify(value, (_k, v: unknown) => (v instanceof RawText ? `\u0000raw:${raws.push(v.text) - 1}` : v));
  return text.replace(/"\\u0000raw:(\d+)"/g, (_m, i: string) => raws[Number(i)]!);
}

function send(res: http.ServerResponse, status: number, body?: unknown, type = AP_JSON): void {
  const text = body === undefined ? '' : stringify(body);
  res.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

export async function startFakeActorPeer(): Promise<FakePeer> {
  const actors = new Map<string, PeerActor>();
  const documents = new Map<string, unknown>();
  const requests: PeerRequest[] = [];
  let base = '';
  let hangOutboxes = false;
  let hangDocuments = false;

  const answerGet = (res: http.ServerResponse, url: URL): void => {
    if (url.pathname === '/.well-known/webfinger') {
      const resource = url.searchParams.get('resource') ?? '';
      const m = /^acct:([^@]+)@(.+)$/.exec(resource);
      const a = m && m[2] === url.host ? actors.get(m[1]!) : [...actors.values()].find((x) => x.id === resource);
      if (!a) return send(res, 404);
      if (a.gone) return send(res, 410);
      return send(
        res,
        200,
        {
          subject: `acct:${a.name}@${url.host}`,
          aliases: [a.id],
          links: [{ rel: 'self', type: AP_JSON, href: a.id }],
        },
        'application/jrd+json',
      );
    }
    const served = documents.get(url.pathname);
    if (served !== undefined) return send(res, 200, served);
    const m = /^\/users\/([^/]+)(?:\/(main-key|publickey|outbox|followers|following))?$/.exec(url.pathname);
    const a = m ? actors.get(m[1]!) : undefined;
    if (!a) return send(res, 404);
    if (a.gone) return send(res, 410);
    const doc = actorDocument(a);
    switch (m![2]) {
      case undefined:
        return send(res, 200, doc);
      case 'main-key':
        // GoToSocial: an actor stub carrying only the key (no inbox, so not a usable actor by itself).
        if (a.keyDocument !== 'gotosocial') return send(res, 404);
        return send(res, 200, { '@context': doc['@context'], id: a.id, type: 'Person', preferredUsername: a.name, publicKey: doc['publicKey'] });
      case 'publickey':
        if (a.keyDocument !== 'key') return send(res, 404);
        return send(res, 200, { '@context': doc['@context'], id: a.keyId, type: 'Key', owner: a.id, publicKeyPem: a.publicKeyPem });
      default:
        return send(res, 200, { '@context': AS_CONTEXT, id: `${base}${url.pathname}`, type: 'OrderedCollection', totalItems: 0, orderedItems: [] });
    }
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks);
      let body: Record<string, unknown> | null = null;
      try {
        body = rawBody.length ? (JSON.parse(rawBody.toString('utf8')) as Record<string, unknown>) : null;
      } catch {
        body = null;
      }
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
      requests.push({ method: req.method ?? 'GET', path: req.url ?? '/', headers, rawBody, body });
      const url = new URL(req.url ?? '/', base);
      if (req.method === 'POST') return send(res, 202, {});
      if (req.method === 'GET' && hangOutboxes && /^\/users\/[^/]+\/outbox$/.test(url.pathname)) return;
      if (req.method === 'GET' && hangDocuments && documents.has(url.pathname)) return;
      if (req.method === 'GET') return answerGet(res, url);
      return send(res, 405);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;

  const actor = (name: string): PeerActor => {
    const a = actors.get(name);
    if (!a) throw new Error(`the peer has no actor ${name}`);
    return a;
  };

  const signedPost = async (target: string, activity: unknown, o: SignedPostOptions): Promise<PostResult> => {
    const a = actor(o.actor);
    const url = new URL(target);
    const signedBody = typeof activity === 'string' ? activity : stringify(activity);
    const names = o.headers ?? ['(request-target)', 'host', 'date', 'digest'];
    const created = typeof o.created === 'number' ? o.created : o.created ? Math.floor(Date.now() / 1000) : undefined;
    const headers: Record<string, string> = {
      host: url.host,
      date: (o.date ?? new Date()).toUTCString(),
      'content-type': AP_JSON,
    };
    if (o.digest !== null) headers['digest'] = o.digest ?? sha256Digest(signedBody);
    const text = signingString(names, 'POST', o.signedTarget ?? url.pathname + url.search, headers, created, o.expires);
    const sig = rsaSign('sha256', Buffer.from(text), a.privateKeyPem);
    if (o.corruptSignature) sig[sig.length >> 1] = sig[sig.length >> 1]! ^ 0xff;
    const params = [
      `keyId="${o.keyId ?? a.keyId}"`,
      ...(o.algorithm === null ? [] : [`algorithm="${o.algorithm ?? 'rsa-sha256'}"`]),
      `headers="${names.join(' ')}"`,
      ...(created === undefined ? [] : [`created=${created}`]),
      ...(o.expires === undefined ? [] : [`expires=${o.expires}`]),
      `signature="${sig.toString('base64')}"`,
    ].join(',');
    const sent = o.tamperBody ? o.tamperBody(signedBody) : signedBody;
    if (o.tamperBody && o.digest !== null) headers['digest'] = sha256Digest(sent);
    const signatureValue = o.rawSignature !== undefined ? o.rawSignature : params;
    if (signatureValue !== null) {
      if (o.form === 'authorization') headers['authorization'] = `Signature ${signatureValue}`;
      else headers['signature'] = signatureValue;
    }
    return post(url, headers, Buffer.from(sent));
  };

  return {
    url: base,
    host: `127.0.0.1:${port}`,
    async addActor(name, opts = {}) {
      const keys = await rsaKeyPair();
      const served = `${base}/users/${name}`;
      // A forgery is consistent: its id, key and owner all name the claimed origin (only where it is served differs).
      const id = opts.claimOrigin ? `${opts.claimOrigin}/users/${name}` : served;
      const style = opts.keyDocument ?? 'actor';
      const keyId = style === 'gotosocial' ? `${id}/main-key` : style === 'key' ? `${id}/publickey` : `${id}#main-key`;
      const a: PeerActor = {
        name,
        id,
        keyId,
        inbox: `${id}/inbox`,
        keyDocument: style,
        displayName: opts.displayName ?? name,
        locked: opts.locked ?? false,
        gone: false,
        attachment: opts.attachment ?? [],
        extra: opts.extra ?? {},
        ...keys,
      };
      actors.set(name, a);
      return a;
    },
    actor,
    document: (name) => actorDocument(actor(name)),
    async rotateKey(name) {
      Object.assign(actor(name), await rsaKeyPair());
    },
    makeGone(name) {
      actor(name).gone = true;
    },
    hangOutboxes(on) {
      hangOutboxes = on;
    },
    hangDocuments(on) {
      hangDocuments = on;
    },
    newId(kind = 'activities') {
      return `${base}/${kind}/${randomUUID()}`;
    },
    serve(doc) {
      const url = new URL(doc.id);
      if (url.origin !== base) throw new Error(`${doc.id} is not on this peer`);
      documents.set(url.pathname, doc);
    },
    requests,
    posts: () => requests.filter((r) => r.method === 'POST'),
    async waitForPost(pred, timeoutMs = 8_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = requests.find((r) => r.method === 'POST' && pred(r));
        if (found) return found;
        if (Date.now() > deadline)
          throw new Error(`the peer received no matching POST within ${timeoutMs} ms (${requests.filter((r) => r.method === 'POST').length} POSTs)`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    signedPost,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A POST with exactly these headers (fetch would add and normalise some; Host must be the one signed). */
function post(url: URL, headers: Record<string, string>, body: Buffer): Promise<PostResult> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        method: 'POST',
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        setHost: false,
        headers: { ...headers, 'content-length': String(body.length) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = text;
          try {
            parsed = text ? JSON.parse(text) : null;
          } catch {
            // not JSON: the text itself is returned
          }
          resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), body: parsed });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
