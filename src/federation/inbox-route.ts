// POST /inbox (shared), /users/:name/inbox and /actor/inbox. Everything that makes a POST trustworthy happens here,
// before it is acknowledged: the signature's shape, its date, the body's digest, the activity's shape, the key
// (fetched and cached, refetched once for a rotated key), the RSA check off the event loop, and that the key's
// owner is the activity's actor. Then the activity is queued durably (idempotent by id) and answered with 202;
// processing happens in the inbox worker.
import { ApiError, Errors } from '../errors.js';
import type { Logger } from '../log.js';
import type { Request } from '../http/request.js';
import { PUBLIC, type Reply, type Route } from '../http/types.js';
import type { Account, AccountStore } from '../store/accounts.js';
import type { InboxJobStore } from '../store/inbox-jobs.js';
import { activitySchema, type ActivityDoc } from './as2.js';
import { FetchError } from './fetch-errors.js';
import { checkSignedPost, parseSignatureHeader, SignatureError, signingString, type SignatureParams } from './http-signatures.js';
import { sameOrigin, type RemoteActors } from './remote-actors.js';
import type { RsaSigner } from './rsa.js';

export interface InboxDeps {
  readonly log: Logger;
  readonly accounts: AccountStore;
  readonly remote: RemoteActors;
  readonly jobs: InboxJobStore;
  readonly rsa: RsaSigner;
  readonly maxBodyBytes: number;
  /** A job was queued: wake the worker. */
  readonly queued: () => void;
  /** The operator's federation policy: true when that host (`host:port`) is suspended. */
  readonly suspended: (host: string) => Promise<boolean>;
}

/** Activity types the inbox acts on; others are verified, acknowledged and not stored. */
const HANDLED = new Set(['Follow', 'Undo', 'Accept', 'Reject', 'Update', 'Delete', 'Block', 'Create', 'Like', 'Announce', 'Flag', 'EmojiReact']);
/** A signature that fails with a stored key refetches that key at most this often (key rotation is rare). */
const REFETCH_EVERY_MS = 5 * 60_000;
const REFETCH_MEMORY = 10_000;

const ACCEPTED: Reply = { status: 202, headers: { 'Content-Type': 'application/json; charset=utf-8' }, body: '{}' };

function unauthorized(reason: string): ApiError {
  return new ApiError(401, 'Request not signed', reason);
}

export function inboxRoutes(d: InboxDeps): Route[] {
  // Without this, anyone could make us refetch a third party's actor with every badly signed POST naming its key.
  const refetchedAt = new Map<string, number>();
  const mayRefetch = (keyId: string): boolean => {
    const now = Date.now();
    const last = refetchedAt.get(keyId);
    if (last !== undefined && now - last < REFETCH_EVERY_MS) return false;
    refetchedAt.delete(keyId);
    if (refetchedAt.size >= REFETCH_MEMORY) refetchedAt.delete(refetchedAt.keys().next().value!);
    refetchedAt.set(keyId, now);
    return true;
  };
  const verifySignature = async (sig: SignatureParams, text: string, signer: Account): Promise<boolean> =>
    d.rsa.verify(signer.publicKeyPem!, text, sig.signature);

  const receive = async (req: Request): Promise<Reply> => {
    const name = req.params['name'];
    if (name !== undefined) {
      const target = await d.accounts.byHandle(name, null);
      if (!target?.hasUser) throw Errors.notFound();
    }
    const body = req.rawBody ?? Buffer.alloc(0);
    const parts = { method: 'POST', target: req.rawQuery ? `${req.path}?${req.rawQuery}` : req.path, headers: req.headers };
    let sig: SignatureParams;
    let text: string;
    try {
      sig = parseSignatureHeader(req.headers['signature'] ?? req.headers['authorization']);
      checkSignedPost(sig, parts, body, Date.now());
      text = signingString(sig, parts);
    } catch (e) {
      if (e instanceof SignatureError) throw unauthorized(e.message);
      throw e;
    }
    const parsed = activitySchema.safeParse(req.body);
    if (!parsed.success) throw Errors.badRequest(`Invalid activity: ${parsed.error.issues[0]?.message ?? 'malformed'}`);
    const activity = parsed.data;

    // A suspended domain is refused before anything is fetched from it (its key included), with 403 rather than
    // Mastodon's silent 202: the sender learns it is not heard, and stops retrying a permanent 4xx.
    if ((await d.suspended(hostOf(sig.keyId))) || (await d.suspended(hostOf(activity.actor)))) throw Errors.forbidden('Domain suspended');

    let signer: Account;
    try {
      signer = await d.remote.byKeyId(sig.keyId);
    } catch (e) {
      // A deleted actor's key can no longer be fetched; its Delete needs no action when we never knew it.
      if (isSelfDelete(activity) && e instanceof FetchError && (e.kind === 'gone' || e.kind === 'not_found')) return ACCEPTED;
      d.log.info({ keyId: sig.keyId, err: e instanceof FetchError ? e.message : e }, 'inbox key not resolvable');
      throw unauthorized('the signing key could not be fetched');
    }
    if (!(await verifySignature(sig, text, signer))) {
      // The actor may have rotated its key since we stored it: refetch once and try again.
      if (!mayRefetch(sig.keyId)) throw unauthorized('signature does not verify');
      try {
        signer = await d.remote.byKeyId(sig.keyId, true);
      } catch {
        throw unauthorized('signature does not verify');
      }
      if (!(await verifySignature(sig, text, signer))) throw unauthorized('signature does not verify');
    }
    const owns = signer.uri === activity.actor || (activity.type === 'Delete' && activity.objectId === signer.uri);
    if (!owns) throw unauthorized('the signing key does not belong to the activity actor');
    // Ids are the idempotency key: a server may only name activities on its own origin.
    if (!sameOrigin(activity.id, signer.uri!)) throw Errors.badRequest("Invalid activity: its id is not on the actor's origin");

    // A suspended account is not heard (its posts would be hidden anyway); acknowledged so its server stops retrying.
    if (signer.suspendedAt) return ACCEPTED;
    const raw = activity.type === 'Update' ? body.toString('utf8') : null;
    if (HANDLED.has(activity.type) && (await d.jobs.enqueue(activity.id, signer.id, req.body, raw))) d.queued();
    return ACCEPTED;
  };

  const route = (path: string): Route => ({ method: 'POST', path, auth: PUBLIC, body: true, maxBodyBytes: d.maxBodyBytes, handler: receive });
  return [route('/inbox'), route('/users/:name/inbox'), route('/actor/inbox')];
}

function isSelfDelete(a: ActivityDoc): boolean {
  return a.type === 'Delete' && a.objectId === a.actor;
}

/** A URL's host (`host:port`, lowercase); '' when it does not parse (it then matches no block). */
function hostOf(url: string): string {
  try {
    return new URL(url).host.toLowerCase();
  } catch {
    return '';
  }
}
