// A Fedify (@fedify/fedify 1.5) server on loopback: an independent ActivityPub implementation that Stoa's
// federation is tested against. Actors 'alice' and 'bob', each with an RSA key (HTTP signatures, `publicKey`,
// RsaSignature2017 on what it sends) and an Ed25519 key (`assertionMethod`; eddsa-jcs-2022 `proof` on what it sends).
//
// Why 1.5 and not 1.6: the registry's only 1.6 (1.6.2) declares Node >=22 and on Node 20 answers 500 to every actor
// GET (exportSpki → byte-encodings → ArrayBuffer.prototype.transfer, Node 21+).
//
// What this peer sends and accepts, read from Fedify's source:
// - Signatures: 1.5 signs only draft-cavage: `algorithm="rsa-sha256"`, `headers` = "(request-target)" followed by
//   every header of the request in Headers order (lower-case, sorted: e.g. "content-type date digest host"), Digest
//   `SHA-256=` on bodies. Its "(request-target)" is the path WITHOUT the query string (it verifies the same way).
//   RFC 9421 and "double-knocking" arrived in 1.6.0 (first knock always RFC 9421, retried as draft-cavage on any
//   4xx/5xx, the winner remembered per origin in the KV store); the `firstKnock` option to choose arrived in 1.7.0.
// - Key fetches made while verifying an inbox POST are signed GETs (as the recipient; shared inbox: as alice).
// - Accept.object is the Follow embedded as received, with its `actor` embedded as a full Person (as Fedify apps
//   written from its tutorial send it); Undo.object is the Follow embedded with ids only.
// - WebFinger for an `acct:` handle always goes to https://host/.well-known/webfinger (lookupWebFinger), so Fedify
//   cannot resolve a handle on a plain-http loopback server: `lookupActor` takes the actor URL. Fedify's own
//   WebFinger endpoint answers `acct:alice@127.0.0.1:<port>` over http, so Stoa can resolve the peer's handles.
// - JSON-LD is expanded with Fedify's preloaded contexts (activitystreams, security/v1, data-integrity, multikey,
//   did, identity/v1, schema.org, gotosocial); any other @context URL would be fetched (and fail offline).
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import {
  Accept,
  Activity,
  Block,
  Delete,
  Endpoints,
  Follow,
  MemoryKvStore,
  Person,
  Reject,
  Undo,
  Update,
  createFederation,
  generateCryptoKeyPair,
  getTypeId,
  isActor,
  Note,
  type Actor,
  type Federation,
  type Recipient,
} from '@fedify/fedify';

export type ReceivedActivity = { type: string; id: string; actor: string; object: string | null; raw: unknown };

export interface ActorSummary {
  id: string;
  type: string;
  preferredUsername: string | null;
  name: string | null;
  inbox: string | null;
  sharedInbox: string | null;
  publicKeyId: string | null;
  followers: string | null;
}

/** One HTTP request the peer answered, with its signature's keyId and covered headers (draft-cavage or RFC 9421). */
export type PeerRequest = {
  method: string;
  path: string;
  status: number;
  keyId: string | null;
  spec: 'draft-cavage' | 'rfc9421' | null;
  /** draft-cavage `headers="…"` split on spaces, or RFC 9421's component list. */
  signedHeaders: string[];
};

export interface FedifyPeer {
  readonly url: string;
  readonly host: string;
  actorUri(name: string): string;
  /** Activities received in the inbox, in order, once Fedify verified them and answered the POST that carried them. */
  readonly received: ReceivedActivity[];
  waitFor(pred: (a: ReceivedActivity) => boolean, timeoutMs?: number): Promise<ReceivedActivity>;
  /** Sends Follow from one of the peer's actors to a remote actor (URL), signed by Fedify; returns the Follow id. */
  follow(from: string, remoteActorUri: string): Promise<string>;
  /** Sends Undo(Follow) for a Follow sent by `follow`. */
  unfollow(from: string, remoteActorUri: string, followId: string): Promise<void>;
  /** Fetches a remote actor through Fedify's lookup (unsigned, or signed as one of the peer's actors). */
  lookupActor(uri: string, opts?: { signedAs?: string }): Promise<ActorSummary>;
  /** Fetches a Note through Fedify's lookup (unsigned), as a server resolves a pasted status URL; null if Fedify finds none. */
  lookupNote(uri: string): Promise<{ id: string; content: string | null; attributedTo: string | null } | null>;
  readonly followers: (name: string) => string[];
  /** Every request the peer answered, in order (for asserting on how Stoa signs). */
  readonly requests: PeerRequest[];
  /** Errors from inbox processing and from sending Accepts (they would otherwise vanish). */
  readonly errors: string[];
  stop(): Promise<void>;
}

const ACTORS = ['alice', 'bob'] as const;
type KeyPair = Awaited<ReturnType<typeof generateCryptoKeyPair>>;

export async function startFedifyPeer(opts: { authorizedFetch?: boolean } = {}): Promise<FedifyPeer> {
  // Fedify's RSA keys are 4096-bit (what Fedify apps publish), 1–2 s each to generate: in parallel, on libuv's pool.
  const keys = new Map<string, KeyPair[]>(
    await Promise.all(
      ACTORS.map(async (name) => [name, await Promise.all([generateCryptoKeyPair('RSASSA-PKCS1-v1_5'), generateCryptoKeyPair('Ed25519')])] as const),
    ),
  );
  const received: ReceivedActivity[] = [];
  const requests: PeerRequest[] = [];
  const errors: string[] = [];
  const followers = new Map<string, Set<string>>(ACTORS.map((n) => [n, new Set<string>()]));
  const rawBodies = new Map<string, unknown>(); // activity id → the JSON as it came over the wire
  const waiters = new Set<() => void>();
  const pending = new Set<Promise<void>>();

  // No queue: Fedify delivers inside sendActivity and throws when the receiver refuses.
  const federation: Federation<void> = createFederation<void>({ kv: new MemoryKvStore(), allowPrivateAddress: true });

  const actorSetters = federation
    .setActorDispatcher('/users/{identifier}', async (ctx, identifier) => {
      if (!keys.has(identifier)) return null;
      const pairs = await ctx.getActorKeyPairs(identifier);
      return new Person({
        id: ctx.getActorUri(identifier),
        preferredUsername: identifier,
        name: `${identifier[0]!.toUpperCase()}${identifier.slice(1)} (Fedify)`,
        inbox: ctx.getInboxUri(identifier),
        endpoints: new Endpoints({ sharedInbox: ctx.getInboxUri() }),
        followers: ctx.getFollowersUri(identifier),
        publicKey: pairs[0]?.cryptographicKey ?? null,
        assertionMethods: pairs.map((p) => p.multikey),
      });
    })
    .setKeyPairsDispatcher((_ctx, identifier) => keys.get(identifier) ?? []);
  // Like Mastodon's secure mode: the actor document is served only to a request signed by a key whose owner
  // Fedify could fetch; anything else gets 401.
  if (opts.authorizedFetch) actorSetters.authorize(async (ctx) => (await ctx.getSignedKeyOwner()) != null);

  federation.setFollowersDispatcher('/users/{identifier}/followers', (_ctx, identifier) => {
    const set = followers.get(identifier);
    if (!set) return null;
    return { items: [...set].map((id): Recipient => ({ id: new URL(id), inboxId: null })) };
  });

  // A listener runs inside federation.fetch, before the request is answered and logged in `requests`; its
  // activity is staged and published to `received` once the answer exists, so a test that saw the activity also
  // sees the request that carried it (with its status).
  const staged: ReceivedActivity[] = [];
  const record = (activity: Activity): void => {
    const id = activity.id?.href ?? '';
    staged.push({
      type: getTypeId(activity).href.replace(/^.*[#/]/, ''),
      id,
      actor: activity.actorId?.href ?? '',
      object: activity.objectId?.href ?? null,
      raw: rawBodies.get(id) ?? null,
    });
  };
  const publish = (bodyId: string | null): void => {
    for (let i = 0; i < staged.length; ) {
      if (staged[i]!.id === bodyId || staged[i]!.id === '') received.push(...staged.splice(i, 1));
      else i++;
    }
    for (const wake of [...waiters]) wake();
  };

  const inbox = federation
    .setInboxListeners('/users/{identifier}/inbox', '/inbox')
    // Key fetches made while verifying a shared-inbox delivery are signed as alice (for authorized-fetch senders).
    .setSharedKeyDispatcher(() => ({ identifier: 'alice' }))
    .on(Follow, async (ctx, follow) => {
      record(follow);
      const target = follow.objectId == null ? null : ctx.parseUri(follow.objectId);
      if (target?.type !== 'actor' || !keys.has(target.identifier)) return;
      const follower = await follow.getActor(ctx);
      if (follower?.id == null) {
        errors.push(`Follow ${follow.id?.href}: could not fetch its actor ${follow.actorId?.href}`);
        return;
      }
      followers.get(target.identifier)!.add(follower.id.href);
      // Not awaited: the Follow's 202 does not wait for the Accept's delivery (real servers send it from a queue,
      // and the sender may hold a delivery slot until we answer). stop() waits for it.
      const me = ctx.getActorUri(target.identifier);
      const accept = new Accept({ id: new URL(`${me.href}#accepts/${randomUUID()}`), actor: me, object: follow });
      const p = ctx
        .sendActivity({ identifier: target.identifier }, follower, accept)
        .catch((e: unknown) => {
          errors.push(`Accept to ${follower.id?.href}: ${String(e)}`);
        })
        .finally(() => pending.delete(p));
      pending.add(p);
    })
    .onError((_ctx, error) => {
      errors.push(`inbox: ${String(error)}`);
    });
  inbox.on(Undo, (ctx, undo) => {
    record(undo);
    // Undo(Follow) of a Follow we recorded: its sender no longer follows. The object may be embedded or an id.
    const undone = [...received, ...staged].find((r) => r.type === 'Follow' && r.id === undo.objectId?.href);
    const target = undone?.object == null ? null : ctx.parseUri(new URL(undone.object));
    if (undone && undone.actor === undo.actorId?.href && target?.type === 'actor') followers.get(target.identifier)?.delete(undone.actor);
  });
  // The most specific registered class handles an activity, so Activity catches every other type.
  for (const type of [Accept, Reject, Update, Delete, Block, Activity] as const) {
    inbox.on(type as typeof Activity, (_ctx, activity) => {
      record(activity);
    });
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      errors.push(`http: ${String(e)}`);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  let base = '';
  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) {
      if (v === undefined) continue;
      for (const one of Array.isArray(v) ? v : [v]) headers.append(k, one);
    }
    const method = req.method ?? 'GET';
    let bodyId: string | null = null;
    if (method === 'POST' && body.length > 0) {
      try {
        const json = JSON.parse(body.toString('utf8')) as { id?: unknown };
        if (typeof json.id === 'string') rawBodies.set((bodyId = json.id), json);
      } catch {
        /* Fedify answers a bad body itself */
      }
    }
    const request = new Request(new URL(req.url ?? '/', base), {
      method,
      headers,
      ...(method === 'GET' || method === 'HEAD' ? {} : { body }),
    });
    const response = await federation.fetch(request, { contextData: undefined });
    requests.push({ method, path: req.url ?? '/', status: response.status, ...signatureOf(headers) });
    publish(bodyId);
    const out: Record<string, string[]> = {};
    response.headers.forEach((value, name) => {
      (out[name] ??= []).push(value);
    });
    res.writeHead(response.status, out);
    res.end(Buffer.from(await response.arrayBuffer()));
  }
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const host = `127.0.0.1:${port}`;
  base = `http://${host}`;
  const ctx = () => federation.createContext(new URL(base), undefined);

  async function lookup(uri: string, signedAs?: string): Promise<Actor> {
    const c = ctx();
    const documentLoader = signedAs ? await c.getDocumentLoader({ identifier: signedAs }) : c.documentLoader;
    const obj = await c.lookupObject(uri, { documentLoader });
    if (isActor(obj)) return obj;
    if (obj != null) throw new Error(`${uri} is a ${getTypeId(obj).href}, not an actor`);
    // Fedify's lookup swallows the reason; an unsigned GET shows what the server answers.
    const r = await fetch(uri, { headers: { accept: 'application/activity+json' } }).catch((e: unknown) => e as Error);
    const seen = r instanceof Error ? String(r) : `${r.status} ${r.headers.get('content-type')} ${(await r.text()).slice(0, 300)}`;
    throw new Error(`Fedify could not look up ${uri}${signedAs ? ` (signed as ${signedAs})` : ''}; unsigned GET: ${seen}`);
  }

  return {
    url: base,
    host,
    actorUri: (name) => `${base}/users/${name}`,
    received,
    requests,
    errors,
    waitFor(pred, timeoutMs = 5000) {
      return new Promise((resolve, reject) => {
        const check = (): boolean => {
          const hit = received.find(pred);
          if (!hit) return false;
          clearTimeout(timer);
          waiters.delete(wake);
          resolve(hit);
          return true;
        };
        const wake = (): void => {
          check();
        };
        const timer = setTimeout(() => {
          waiters.delete(wake);
          reject(
            new Error(
              `no matching activity within ${timeoutMs} ms; received: ${JSON.stringify(received.map((r) => [r.type, r.id]))}; errors: ${JSON.stringify(errors)}`,
            ),
          );
        }, timeoutMs);
        waiters.add(wake);
        check();
      });
    },
    async follow(from, remoteActorUri) {
      const c = ctx();
      const remote = await lookup(remoteActorUri, from);
      const me = c.getActorUri(from);
      const id = new URL(`${me.href}/follows/${randomUUID()}`);
      await c.sendActivity({ identifier: from }, remote, new Follow({ id, actor: me, object: remote.id }));
      return id.href;
    },
    async unfollow(from, remoteActorUri, followId) {
      const c = ctx();
      const remote = await lookup(remoteActorUri, from);
      const me = c.getActorUri(from);
      const undo = new Undo({
        id: new URL(`${me.href}#undo/${randomUUID()}`),
        actor: me,
        object: new Follow({ id: new URL(followId), actor: me, object: remote.id }),
      });
      await c.sendActivity({ identifier: from }, remote, undo);
    },
    async lookupNote(uri) {
      const c = ctx();
      const obj = await c.lookupObject(uri, { documentLoader: c.documentLoader });
      if (!(obj instanceof Note)) return null;
      return { id: obj.id?.href ?? '', content: obj.content?.toString() ?? null, attributedTo: obj.attributionId?.href ?? null };
    },
    async lookupActor(uri, o = {}) {
      const a = await lookup(uri, o.signedAs);
      return {
        id: a.id?.href ?? '',
        type: getTypeId(a).href.replace(/^.*[#/]/, ''),
        preferredUsername: a.preferredUsername?.toString() ?? null,
        name: a.name?.toString() ?? null,
        inbox: a.inboxId?.href ?? null,
        sharedInbox: a.endpoints?.sharedInbox?.href ?? null,
        publicKeyId: a.publicKeyId?.href ?? null,
        followers: a.followersId?.href ?? null,
      };
    },
    followers: (name) => [...(followers.get(name) ?? [])],
    async stop() {
      await Promise.allSettled([...pending]);
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

function signatureOf(headers: Headers): Pick<PeerRequest, 'keyId' | 'spec' | 'signedHeaders'> {
  const input = headers.get('signature-input');
  if (input) {
    const components = /=\(([^)]*)\)/.exec(input)?.[1] ?? '';
    return { keyId: /keyid="([^"]*)"/i.exec(input)?.[1] ?? null, spec: 'rfc9421', signedHeaders: components.match(/[^"\s]+/g) ?? [] };
  }
  const sig = headers.get('signature');
  if (sig) {
    const names = /headers="([^"]*)"/.exec(sig)?.[1] ?? 'date'; // draft-cavage: absent means just Date
    return { keyId: /keyId="([^"]*)"/.exec(sig)?.[1] ?? null, spec: 'draft-cavage', signedHeaders: names.split(/\s+/).filter(Boolean) };
  }
  return { keyId: null, spec: null, signedHeaders: [] };
}
