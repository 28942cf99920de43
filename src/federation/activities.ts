// The activities we send, built in one place so their shapes (ids, addressing, embedded objects) stay consistent
// with what Mastodon-family servers expect.
import { randomBytes } from 'node:crypto';
import type { Account } from '../store/accounts.js';
import type { LocalUris } from '../urls/local-uris.js';

export const AS_CONTEXT = 'https://www.w3.org/ns/activitystreams';
export const PUBLIC = 'https://www.w3.org/ns/activitystreams#Public';

export type Activity = Record<string, unknown> & { id: string; type: string; actor: string };

/** The actor URI of an account, local or remote. */
export function actorUri(a: Account, uris: LocalUris): string {
  if (a.domain === null) return a.instanceActor ? uris.instanceActor : uris.actor(a.username);
  return a.uri!;
}

export function followActivity(uris: LocalUris, from: Account, to: Account, requestId: string): Activity {
  const actor = actorUri(from, uris);
  return { '@context': AS_CONTEXT, id: `${actor}#follows/${requestId}`, type: 'Follow', actor, object: actorUri(to, uris) };
}

/** Undo of a Follow we sent; the original is embedded so receivers need not look it up. */
export function undoFollowActivity(uris: LocalUris, from: Account, to: Account, followId: string, followUri: string | null): Activity {
  const actor = actorUri(from, uris);
  const follow = { id: followUri ?? `${actor}#follows/${followId}`, type: 'Follow', actor, object: actorUri(to, uris) };
  return { '@context': AS_CONTEXT, id: `${follow.id}/undo`, type: 'Undo', actor, object: follow };
}

/** Accept or Reject of a remote Follow; the Follow is embedded with its original id. */
export function answerFollowActivity(
  kind: 'Accept' | 'Reject',
  uris: LocalUris,
  me: Account,
  follower: Account,
  followUri: string | null,
  rowId: string,
): Activity {
  const actor = actorUri(me, uris);
  const follow: Record<string, unknown> = { type: 'Follow', actor: actorUri(follower, uris), object: actor };
  if (followUri) follow['id'] = followUri;
  return { '@context': AS_CONTEXT, id: `${actor}#${kind.toLowerCase()}s/follows/${rowId}`, type: kind, actor, object: follow };
}

export function updateActorActivity(uris: LocalUris, me: Account, actorDocument: Record<string, unknown>): Activity {
  const actor = actorUri(me, uris);
  return {
    '@context': actorDocument['@context'] ?? AS_CONTEXT,
    id: `${actor}#updates/${Date.now()}-${randomBytes(4).toString('hex')}`, // two edits in one millisecond stay distinct
    type: 'Update',
    actor,
    to: [PUBLIC],
    object: { ...actorDocument, '@context': undefined },
  };
}

/**
 * A featured hashtag added to or removed from the member's featuredTags collection, as Mastodon's
 * ActivityPub::AddHashtagSerializer and RemoveHashtagSerializer write it (an id added: our deliveries are keyed by it).
 */
export function featuredTagActivity(uris: LocalUris, me: Account, type: 'Add' | 'Remove', tag: { readonly id: string; readonly name: string }): Activity {
  const actor = actorUri(me, uris);
  return {
    '@context': [AS_CONTEXT, { Hashtag: 'as:Hashtag' }],
    id: `${actor}#featured_tags/${tag.id}/${type.toLowerCase()}`,
    type,
    actor,
    target: uris.featuredTags(me.username),
    object: { type: 'Hashtag', href: uris.taggedBy(me.username, tag.name), name: `#${tag.name}` },
  };
}

export function blockActivity(uris: LocalUris, from: Account, to: Account, id: string): Activity {
  const actor = actorUri(from, uris);
  return { '@context': AS_CONTEXT, id: `${actor}#blocks/${id}`, type: 'Block', actor, object: actorUri(to, uris) };
}

export function undoBlockActivity(uris: LocalUris, from: Account, to: Account, blockUri: string): Activity {
  const actor = actorUri(from, uris);
  const block = { id: blockUri, type: 'Block', actor, object: actorUri(to, uris) };
  return { '@context': AS_CONTEXT, id: `${blockUri}/undo`, type: 'Undo', actor, object: block };
}

/** A report forwarded to the reported account's server, sent by the instance actor (the reporter stays private). */
export function flagActivity(uris: LocalUris, target: Account, statusUris: readonly string[], comment: string, id: string): Activity {
  return {
    '@context': AS_CONTEXT,
    id: `${uris.instanceActor}#reports/${id}`,
    type: 'Flag',
    actor: uris.instanceActor,
    content: comment,
    object: [actorUri(target, uris), ...statusUris],
  };
}
