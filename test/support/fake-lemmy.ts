// A hand-written Lemmy 0.19 instance on loopback with one community, independent of Stoa (nothing from src/ is
// imported: documents are built here from Lemmy's own JSON fixtures, signatures made and checked with node:crypto),
// so that a shared misunderstanding of Lemmy cannot make both sides agree. It serves WebFinger, NodeInfo, the Group,
// its collections, its users and their posts and comments; its inboxes verify HTTP signatures as Lemmy does (the key
// of the activity's actor, fetched; (request-target) content-type date digest host signed; the Digest matching)
// and then act as Lemmy: a Follow is accepted, and what reaches the community (Create, Update, Delete, Like,
// Dislike, Undo) is counted and re-announced to every follower, with the compat Announce{Page} for posts. Its own
// users post, comment, vote, edit and delete on command, announced the same way. See docs/decisions/0057-fake-lemmy.md.
import http from 'node:http';
import { generateKeyPair, sign as rsaSign, verify as rsaVerify } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { parseSignature, sha256Digest, signingString } from './fake-actor-peer.js';
import { AP_JSON, asArray, type Doc, idOf, isRecord, LemmyDocuments, withContext } from './lemmy-documents.js';

export { LEMMY_CONTEXT, LEMMY_VERSION, lemmyFixture } from './lemmy-documents.js';
/** The headers Lemmy signs on every POST (activitypub-federation), and so the ones this fake demands. */
export const LEMMY_SIGNED_HEADERS = ['(request-target)', 'content-type', 'date', 'digest', 'host'] as const;

export interface LemmyUser {
  readonly name: string;
  readonly id: string;
  readonly inbox: string;
  readonly keyId: string;
  readonly publicKeyPem: string;
  readonly privateKeyPem: string;
}

/** A post or comment the community holds: the fake's users' own, and those remote members sent it. */
export interface LemmyObject {
  readonly id: string;
  readonly kind: 'post' | 'comment';
  readonly local: boolean;
  readonly creator: string;
  /** The post a comment belongs to (its own id for a post). */
  readonly postId: string;
  readonly parentId: string | null;
  /** The latest Page or Note received or made. */
  doc: Doc;
  deleted: boolean;
  /** Votes by actor id, ±1, as the community counts them. */
  readonly votes: Map<string, 1 | -1>;
}

/** One POST to one of the fake's inboxes and what the fake made of it. */
export interface LemmyDelivery {
  readonly path: string;
  readonly status: number;
  /** Why it was refused (status 4xx), or null. */
  readonly refusal: string | null;
  /** The signature checked out against the actor's key and the Digest matched the body. */
  readonly verified: boolean;
  readonly signedHeaders: readonly string[];
  readonly algorithm: string | undefined;
  readonly keyId: string | undefined;
  readonly headers: Readonly<Record<string, string>>;
  readonly activity: Doc | null;
}

/** One POST the fake sent (an Accept, an Announce) and the answer it got. */
export interface LemmySent {
  readonly inbox: string;
  readonly activity: Doc;
  readonly body: string;
  readonly status: number;
}

export interface Counts {
  readonly upvotes: number;
  readonly downvotes: number;
  readonly score: number;
}

export interface FakeLemmyOptions {
  /** The community's name (default 'tenforward') and title (default 'Ten Forward'). */
  community?: string;
  title?: string;
  /** Its users, the first the community's moderator (default ['picard']). */
  users?: readonly string[];
  /** The headers a POST must have signed (default LEMMY_SIGNED_HEADERS). */
  requiredSignedHeaders?: readonly string[];
}

export interface FakeLemmy {
  readonly url: string;
  readonly host: string;
  /** `tenforward@127.0.0.1:port`, as WebFinger knows the community. */
  readonly communityHandle: string;
  readonly community: { readonly name: string; readonly id: string; readonly inbox: string; readonly followers: string; readonly keyId: string };
  readonly communityPublicKeyPem: string;
  user(name: string): LemmyUser;
  addUser(name: string): Promise<LemmyUser>;
  /** Actor ids of the community's followers, in order of following. */
  followers(): string[];
  object(id: string): LemmyObject | undefined;
  counts(id: string): Counts;
  readonly received: LemmyDelivery[];
  readonly sent: LemmySent[];
  waitForDelivery(pred: (d: LemmyDelivery) => boolean, timeoutMs?: number): Promise<LemmyDelivery>;
  /** Resolves once every delivery the fake has started has been answered. */
  settled(): Promise<void>;
  /** A post by one of the fake's users, announced to the followers (both forms); resolves once they answered. */
  post(user: string, p: { name: string; url?: string; body?: string }): Promise<{ id: string; activityId: string }>;
  comment(user: string, parentId: string, text: string): Promise<{ id: string; activityId: string }>;
  /** 1 Like, -1 Dislike, 0 Undo of the user's vote. */
  vote(user: string, objectId: string, score: 1 | 0 | -1): Promise<{ activityId: string }>;
  edit(user: string, objectId: string, changes: { name?: string; url?: string; body?: string; text?: string }): Promise<{ activityId: string }>;
  delete(user: string, objectId: string): Promise<{ activityId: string }>;
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

function send(res: http.ServerResponse, status: number, body?: unknown, type = AP_JSON): void {
  const text = body === undefined ? '' : JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

class Refusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

interface Follower {
  readonly actor: string;
  readonly inbox: string;
}

export async function startFakeLemmy(opts: FakeLemmyOptions = {}): Promise<FakeLemmy> {
  const communityName = opts.community ?? 'tenforward';
  const title = opts.title ?? 'Ten Forward';
  const required = opts.requiredSignedHeaders ?? LEMMY_SIGNED_HEADERS;
  const users = new Map<string, LemmyUser>();
  const objects = new Map<string, LemmyObject>();
  const activities = new Map<string, Doc>(); // what the fake sent, served at its id
  const followers = new Map<string, Follower>();
  const actorKeys = new Map<string, Doc>(); // fetched remote actors, by id
  const seen = new Set<string>(); // ids of the activities received
  const received: LemmyDelivery[] = [];
  const sent: LemmySent[] = [];
  const pending = new Set<Promise<unknown>>();
  const localPosts: string[] = [];
  let nextPost = 1;
  let nextComment = 1;
  let localComments = 0;

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
      const path = req.url ?? '/';
      if (req.method === 'POST') {
        inbox(path, headers, body).then(
          ({ status }) => send(res, status, status < 300 ? undefined : { error: received.at(-1)?.refusal ?? 'refused' }, 'application/json'),
          () => send(res, 500),
        );
        return;
      }
      if (req.method !== 'GET') return send(res, 405);
      try {
        answerGet(res, new URL(path, base));
      } catch {
        send(res, 500);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const base = `http://127.0.0.1:${port}`;
  const host = `127.0.0.1:${port}`;
  const docs = new LemmyDocuments(base, host, communityName, title);
  const community = docs.community;
  const groupKeys = await rsaKeyPair();
  const siteKeys = await rsaKeyPair();

  const user = (name: string): LemmyUser => {
    const u = users.get(name);
    if (!u) throw new Error(`the fake Lemmy has no user ${name}`);
    return u;
  };
  const addUser = async (name: string): Promise<LemmyUser> => {
    const id = `${base}/u/${name}`;
    const u: LemmyUser = { name, id, inbox: `${id}/inbox`, keyId: `${id}#main-key`, ...(await rsaKeyPair()) };
    users.set(name, u);
    return u;
  };
  for (const name of opts.users ?? ['picard']) await addUser(name);
  const moderators = [...users.values()].map((u) => u.id);

  // ---- delivery ---------------------------------------------------------------------------------------------------

  /** POSTs `body` to `inbox`, signed by the community as Lemmy signs (hs2019 over LEMMY_SIGNED_HEADERS). */
  const deliver = (inbox: string, body: string, signer: { keyId: string; privateKeyPem: string }): Promise<void> => {
    const url = new URL(inbox);
    const headers: Record<string, string> = {
      'content-type': AP_JSON,
      date: new Date().toUTCString(),
      digest: sha256Digest(body),
      host: url.host,
    };
    const names = [...LEMMY_SIGNED_HEADERS];
    const signature = rsaSign('sha256', Buffer.from(signingString(names, 'POST', url.pathname + url.search, headers)), signer.privateKeyPem);
    headers['signature'] = `keyId="${signer.keyId}",algorithm="hs2019",headers="${names.join(' ')}",signature="${signature.toString('base64')}"`;
    const done = request('POST', url, headers, Buffer.from(body)).then(
      (r) => void sent.push({ inbox, activity: JSON.parse(body) as Doc, body, status: r.status }),
      () => void sent.push({ inbox, activity: JSON.parse(body) as Doc, body, status: 0 }),
    );
    pending.add(done);
    void done.finally(() => pending.delete(done));
    return done;
  };
  const groupSigner = { keyId: community.keyId, privateKeyPem: groupKeys.privateKeyPem };
  /** Every follower's inbox once (shared inboxes are shared). */
  const followerInboxes = (): string[] => [...new Set([...followers.values()].map((f) => f.inbox))];
  /** What Lemmy does with an activity in a local community: Announce{activity} to every follower, then Announce{Page} for a post. */
  const announce = async (inner: Doc): Promise<void> => {
    activities.set(String(inner['id']), inner);
    const outer = withContext(docs.announce(inner));
    activities.set(String(outer['id']), outer);
    const object = isRecord(inner['object']) ? inner['object'] : null;
    const compat =
      (inner['type'] === 'Create' || inner['type'] === 'Update') && object?.['type'] === 'Page' ? docs.compatAnnounce(object, String(inner['actor'])) : null;
    await Promise.all(
      followerInboxes().map(async (inbox) => {
        await deliver(inbox, JSON.stringify(outer), groupSigner);
        if (compat) await deliver(inbox, compat, groupSigner);
      }),
    );
  };

  // ---- fetching remote actors, signed by the site actor as Lemmy 0.19 signs its fetches --------------------------

  const fetchActor = async (id: string, fresh: boolean): Promise<Doc> => {
    const known = actorKeys.get(id);
    if (known && !fresh) return known;
    const url = new URL(id);
    const headers: Record<string, string> = { accept: AP_JSON, date: new Date().toUTCString(), host: url.host };
    const names = ['(request-target)', 'accept', 'date', 'host'];
    const signature = rsaSign('sha256', Buffer.from(signingString(names, 'GET', url.pathname + url.search, headers)), siteKeys.privateKeyPem);
    headers['signature'] = `keyId="${base}/#main-key",algorithm="hs2019",headers="${names.join(' ')}",signature="${signature.toString('base64')}"`;
    const r = await request('GET', url, headers);
    if (r.status !== 200) throw new Refusal(401, `actor ${id} answered ${r.status}`);
    const doc = JSON.parse(r.body) as unknown;
    if (!isRecord(doc) || doc['id'] !== id) throw new Refusal(401, `actor ${id} is not at its id`);
    actorKeys.set(id, doc);
    return doc;
  };
  const publicKeyOf = (actor: Doc): string => {
    const key = asArray(actor['publicKey']).find((k) => isRecord(k) && k['owner'] === actor['id']);
    if (!isRecord(key) || typeof key['publicKeyPem'] !== 'string') throw new Refusal(401, `actor ${String(actor['id'])} has no key`);
    return key['publicKeyPem'];
  };

  // ---- the inbox --------------------------------------------------------------------------------------------------

  const INBOX = /^\/(?:inbox|c\/[^/]+\/inbox|u\/[^/]+\/inbox)$/;
  const inbox = async (path: string, headers: Record<string, string>, body: Buffer): Promise<{ status: number }> => {
    let signedHeaders: string[] = [];
    let algorithm: string | undefined;
    let keyId: string | undefined;
    let activity: Doc | null = null;
    let verified = false;
    const record = (status: number, refusal: string | null) => {
      received.push({ path, status, refusal, verified, signedHeaders, algorithm, keyId, headers, activity });
      return { status };
    };
    try {
      if (!INBOX.test(path)) throw new Refusal(404, 'no inbox here');
      // Lemmy routes a POST to an inbox only with an application/* content type (http/routes.rs InboxRequestGuard).
      if (!(headers['content-type'] ?? '').startsWith('application/')) throw new Refusal(415, 'content type');
      try {
        const parsed = JSON.parse(body.toString('utf8')) as unknown;
        activity = isRecord(parsed) ? parsed : null;
      } catch {
        activity = null;
      }
      if (!headers['signature']) throw new Refusal(401, 'no signature');
      const sig = parseSignature(headers['signature']);
      signedHeaders = sig.headers;
      algorithm = sig.algorithm;
      keyId = sig.keyId;
      const missing = required.filter((h) => !sig.headers.includes(h));
      if (missing.length > 0) throw new Refusal(401, `not signed: ${missing.join(' ')}`);
      if (headers['digest'] !== sha256Digest(body)) throw new Refusal(401, 'digest mismatch');
      const date = Date.parse(headers['date'] ?? '');
      if (!Number.isFinite(date) || Math.abs(Date.now() - date) > 3_600_000) throw new Refusal(401, 'stale date');
      if (!activity) throw new Refusal(400, 'not a JSON object');
      const actorId = idOf(activity['actor']);
      if (!actorId) throw new Refusal(400, 'no actor');
      // activitypub-federation verifies with the key of the activity's actor, whatever keyId says.
      const text = signingString(sig.headers, 'POST', path, headers);
      let actor = await fetchActor(actorId, false);
      if (!rsaVerify('sha256', Buffer.from(text), publicKeyOf(actor), sig.signature)) {
        actor = await fetchActor(actorId, true);
        if (!rsaVerify('sha256', Buffer.from(text), publicKeyOf(actor), sig.signature)) throw new Refusal(401, 'bad signature');
      }
      verified = true;
      const id = idOf(activity);
      if (!id || new URL(id).origin !== new URL(actorId).origin) throw new Refusal(400, 'activity id not on the actor origin');
      // Lemmy records every activity id it receives and refuses one it has seen (insert_received_activity).
      if (seen.has(id)) throw new Refusal(400, 'duplicate activity');
      seen.add(id);
      await act(activity, actorId, actor);
      return record(200, null);
    } catch (e) {
      if (e instanceof Refusal) return record(e.status, e.message);
      return record(400, e instanceof Error ? e.message : String(e));
    }
  };

  /** Lemmy's handling of a verified activity from a remote actor. Throws a Refusal when Lemmy would refuse it. */
  const act = async (a: Doc, actorId: string, actor: Doc): Promise<void> => {
    const type = a['type'];
    const object = a['object'];
    switch (type) {
      case 'Follow': {
        if (idOf(object) !== community.id) throw new Refusal(400, 'follows only the community here');
        const endpoints = isRecord(actor['endpoints']) ? actor['endpoints'] : {};
        const inboxUrl = idOf(endpoints['sharedInbox']) ?? idOf(actor['inbox']);
        if (!inboxUrl) throw new Refusal(400, 'follower has no inbox');
        followers.set(actorId, { actor: actorId, inbox: inboxUrl });
        const doc = docs.accept(a, actorId);
        activities.set(String(doc['id']), doc);
        void deliver(inboxUrl, JSON.stringify(doc), groupSigner);
        return;
      }
      case 'Create':
      case 'Update': {
        if (!isRecord(object)) throw new Refusal(400, `${type} without its object`);
        const objId = idOf(object);
        if (!objId || new URL(objId).origin !== new URL(actorId).origin) throw new Refusal(400, 'object not on the actor origin');
        if (idOf(object['attributedTo']) !== actorId) throw new Refusal(400, 'object not by the actor');
        const known = objects.get(objId);
        if (type === 'Update') {
          if (!known) throw new Refusal(400, 'update of an unknown object');
          known.doc = object;
        } else if (object['type'] === 'Page') {
          const to = [...asArray(object['to']), ...asArray(object['cc']), object['audience']];
          if (!to.includes(community.id)) throw new Refusal(400, 'post not in the community');
          // The author likes their own post by default (Lemmy's CreateOrUpdatePage::receive).
          if (!known)
            objects.set(objId, {
              id: objId,
              kind: 'post',
              local: false,
              creator: actorId,
              postId: objId,
              parentId: null,
              doc: object,
              deleted: false,
              votes: new Map([[actorId, 1]]),
            });
        } else if (object['type'] === 'Note') {
          const parent = objects.get(idOf(object['inReplyTo']) ?? '');
          if (!parent) throw new Refusal(400, 'comment on an unknown post');
          if (!known)
            objects.set(objId, {
              id: objId,
              kind: 'comment',
              local: false,
              creator: actorId,
              postId: parent.postId,
              parentId: parent.id,
              doc: object,
              deleted: false,
              votes: new Map([[actorId, 1]]),
            });
        } else throw new Refusal(400, `cannot ${type} a ${String(object['type'])}`);
        return void announceLater(a);
      }
      case 'Delete': {
        const target = objects.get(idOf(object) ?? '');
        if (!target) throw new Refusal(400, 'delete of an unknown object');
        if (target.creator !== actorId) throw new Refusal(400, 'not the creator');
        target.deleted = true;
        return void announceLater(a);
      }
      case 'Like':
      case 'Dislike': {
        const target = objects.get(idOf(object) ?? '');
        if (!target) throw new Refusal(400, 'vote on an unknown object');
        target.votes.set(actorId, type === 'Like' ? 1 : -1);
        return void announceLater(a);
      }
      case 'Undo': {
        if (!isRecord(object)) throw new Refusal(400, 'Undo without its object');
        if (idOf(object['actor']) !== actorId) throw new Refusal(400, 'undo of another actor');
        if (object['type'] === 'Follow') {
          followers.delete(actorId);
          return;
        }
        if (object['type'] === 'Like' || object['type'] === 'Dislike') {
          objects.get(idOf(object['object']) ?? '')?.votes.delete(actorId);
          return void announceLater(a);
        }
        if (object['type'] === 'Delete') {
          const target = objects.get(idOf(object['object']) ?? '');
          if (!target || target.creator !== actorId) throw new Refusal(400, 'restore of an unknown object');
          target.deleted = false;
          return void announceLater(a);
        }
        throw new Refusal(400, `cannot undo a ${String(object['type'])}`);
      }
      default:
        // Lemmy parses unknown activity types as errors.
        throw new Refusal(400, `unknown activity type ${String(type)}`);
    }
  };
  /** Announced after the inbox has answered, as Lemmy queues its sends. */
  const announceLater = (a: Doc): void => {
    const { '@context': _c, ...inner } = a;
    const p = new Promise<void>((resolve) => setImmediate(resolve)).then(() => announce(inner));
    pending.add(p);
    void p.finally(() => pending.delete(p));
  };

  // ---- GET --------------------------------------------------------------------------------------------------------

  const answerGet = (res: http.ServerResponse, url: URL): void => {
    const p = url.pathname;
    if (p === '/.well-known/webfinger') return webfinger(res, url.searchParams.get('resource') ?? '');
    if (p === '/.well-known/nodeinfo') return send(res, 200, docs.nodeinfoLinks(), 'application/json');
    if (p === '/nodeinfo/2.1') return send(res, 200, docs.nodeinfo(users.size, localPosts.length, localComments), 'application/json');
    if (p === '/') return send(res, 200, docs.site(siteKeys.publicKeyPem));
    const c = /^\/c\/([^/]+)(\/\/featured|\/featured|\/followers|\/moderators|\/outbox)?$/.exec(p);
    if (c) {
      if (c[1] !== communityName) return send(res, 404, { error: 'couldnt_find_community' }, 'application/json');
      switch (c[2]) {
        case undefined:
          return send(res, 200, docs.group(groupKeys.publicKeyPem));
        case '/followers':
          return send(res, 200, docs.followers(followers.size));
        case '/moderators':
          return send(res, 200, docs.moderators(moderators));
        case '/outbox': {
          const latest = localPosts
            .slice(-20)
            .reverse()
            .map((id) => objects.get(id)!)
            .filter((o) => !o.deleted);
          return send(res, 200, docs.outbox(latest));
        }
        default:
          return send(res, 200, docs.featured());
      }
    }
    const u = /^\/u\/([^/]+)(\/outbox)?$/.exec(p);
    if (u) {
      const found = users.get(u[1]!);
      if (!found) return send(res, 404, { error: 'couldnt_find_person' }, 'application/json');
      return send(res, 200, u[2] ? docs.personOutbox(found) : docs.person(found));
    }
    if (/^\/(?:post|comment)\/\d+$/.test(p)) {
      const o = objects.get(base + p);
      if (!o?.local) return send(res, 404, { error: 'not_found' }, 'application/json');
      // A deleted post or comment is served as a Tombstone with 410 Gone (http/post.rs, create_apub_tombstone_response).
      if (o.deleted) return send(res, 410, docs.tombstone(o.id));
      return send(res, 200, withContext(o.doc));
    }
    const activity = activities.get(base + p);
    if (activity) return send(res, 200, withContext(activity));
    return send(res, 404, { error: 'not_found' }, 'application/json');
  };

  /** Lemmy's WebFinger (routes/webfinger.rs): the subject echoed, links for a user and for the community by that name. */
  const webfinger = (res: http.ServerResponse, resource: string): void => {
    const m = /^acct:([^@]+)@(.+)$/.exec(resource);
    if (!m || m[2] !== host) return send(res, 404);
    const person = users.get(m[1]!);
    const links = [...(person ? docs.webfingerLinks(person.id, 'Person') : []), ...(m[1] === communityName ? docs.webfingerLinks(community.id, 'Group') : [])];
    if (links.length === 0) return send(res, 404);
    send(res, 200, { subject: resource, links }, 'application/jrd+json');
  };

  // ---- the fake's own users' actions ------------------------------------------------------------------------------

  const localObject = (id: string, by: LemmyUser): LemmyObject => {
    const o = objects.get(id);
    if (!o) throw new Error(`the fake Lemmy holds no ${id}`);
    if (o.creator !== by.id) throw new Error(`${id} is not by ${by.name}`);
    return o;
  };
  const now = () => new Date().toISOString();

  return {
    url: base,
    host,
    communityHandle: `${communityName}@${host}`,
    community,
    communityPublicKeyPem: groupKeys.publicKeyPem,
    user,
    addUser,
    followers: () => [...followers.keys()],
    object: (id) => objects.get(id),
    counts(id) {
      const o = objects.get(id);
      if (!o) throw new Error(`the fake Lemmy holds no ${id}`);
      const votes = [...o.votes.values()];
      const upvotes = votes.filter((v) => v === 1).length;
      const downvotes = votes.length - upvotes;
      return { upvotes, downvotes, score: upvotes - downvotes };
    },
    received,
    sent,
    async waitForDelivery(pred, timeoutMs = 8_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = received.find(pred);
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`the fake Lemmy received no matching POST within ${timeoutMs} ms (${received.length} POSTs)`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    async settled() {
      while (pending.size > 0) await Promise.allSettled([...pending]);
    },
    async post(name, p) {
      const u = user(name);
      const id = `${base}/post/${nextPost++}`;
      const page = docs.page(id, u.id, p, now());
      objects.set(id, { id, kind: 'post', local: true, creator: u.id, postId: id, parentId: null, doc: page, deleted: false, votes: new Map([[u.id, 1]]) });
      localPosts.push(id);
      const create: Doc = { ...docs.create('create_page', u.id), object: page };
      await announce(create);
      return { id, activityId: String(create['id']) };
    },
    async comment(name, parentId, text) {
      const u = user(name);
      const parent = objects.get(parentId);
      if (!parent) throw new Error(`the fake Lemmy holds no ${parentId}`);
      const id = `${base}/comment/${nextComment++}`;
      const note = docs.note(id, u.id, parent, text, now());
      localComments++;
      objects.set(id, {
        id,
        kind: 'comment',
        local: true,
        creator: u.id,
        postId: parent.postId,
        parentId,
        doc: note,
        deleted: false,
        votes: new Map([[u.id, 1]]),
      });
      const create: Doc = { ...docs.create('create_note', u.id), cc: [community.id, parent.creator], tag: note['tag'], object: note };
      await announce(create);
      return { id, activityId: String(create['id']) };
    },
    async vote(name, objectId, score) {
      const u = user(name);
      const o = objects.get(objectId);
      if (!o) throw new Error(`the fake Lemmy holds no ${objectId}`);
      let activity: Doc;
      if (score === 0) {
        const previous = o.votes.get(u.id);
        if (previous === undefined) throw new Error(`${u.name} has no vote on ${objectId}`);
        activity = docs.undoVote(previous === 1 ? 'Like' : 'Dislike', u.id, objectId);
        o.votes.delete(u.id);
      } else {
        activity = docs.vote(score === 1 ? 'Like' : 'Dislike', u.id, objectId);
        o.votes.set(u.id, score);
      }
      await announce(activity);
      return { activityId: String(activity['id']) };
    },
    async edit(name, objectId, changes) {
      const u = user(name);
      const o = localObject(objectId, u);
      const published = String(o.doc['published']);
      if (o.kind === 'post') {
        const source = isRecord(o.doc['source']) ? String(o.doc['source']['content']) : undefined;
        const href = asArray(o.doc['attachment']).find((x): x is Doc => isRecord(x) && typeof x['href'] === 'string')?.['href'] as string | undefined;
        const p = { name: changes.name ?? String(o.doc['name']), url: changes.url ?? href, body: changes.body ?? source };
        o.doc = docs.page(o.id, u.id, p, published, now());
      } else {
        const parent = objects.get(o.parentId!)!;
        o.doc = docs.note(o.id, u.id, parent, changes.text ?? changes.body ?? '', published, now());
      }
      const update: Doc = { ...docs.create('update_page', u.id), object: o.doc };
      if (o.kind === 'comment') Object.assign(update, { cc: o.doc['cc'], tag: o.doc['tag'] });
      await announce(update);
      return { activityId: String(update['id']) };
    },
    async delete(name, objectId) {
      const u = user(name);
      const o = localObject(objectId, u);
      o.deleted = true;
      const del = docs.delete(u.id, objectId);
      await announce(del);
      return { activityId: String(del['id']) };
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

interface Answer {
  readonly status: number;
  readonly body: string;
}

/** A request with exactly these headers (fetch would add and normalise some; Host must be the one signed). */
function request(method: 'GET' | 'POST', url: URL, headers: Record<string, string>, body?: Buffer): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        method,
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        setHost: false,
        headers: body ? { ...headers, 'content-length': String(body.length) } : headers,
        timeout: 10_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end(body);
  });
}
