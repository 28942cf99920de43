// ActivityStreams 2.0 documents as real servers send them (Mastodon, Pleroma/Akkoma, Misskey, GoToSocial, Lemmy,
// Fedify), validated and flattened into shapes the rest of federation can trust. No I/O here.
//
// The rule: what we need to act on (ids, inbox, the actor of an activity) is strict and refuses the document; what
// we only display or store (names, icons, fields) is lenient: a malformed or hostile value becomes null or is cut
// to size, because one server's odd profile must not make it unreachable. JSON-LD is read as plain JSON in its
// compacted form (the form every one of those servers sends); single values and arrays are both accepted wherever
// the vocabulary allows either.
import { z } from 'zod';

export const ACTOR_TYPES = ['Person', 'Service', 'Group', 'Application', 'Organization'] as const;
export type ActorType = (typeof ACTOR_TYPES)[number];

export interface ActorDoc {
  id: string;
  type: ActorType;
  preferredUsername: string;
  name: string | null;
  summary: string | null;
  url: string | null;
  inbox: string;
  sharedInbox: string | null;
  outbox: string | null;
  followers: string | null;
  following: string | null;
  featured: string | null;
  publicKey: { id: string; owner: string; publicKeyPem: string } | null;
  icon: string | null;
  image: string | null;
  manuallyApprovesFollowers: boolean;
  discoverable: boolean | null;
  indexable: boolean | null;
  published: string | null;
  fields: { name: string; value: string }[];
  attachment: unknown[];
  alsoKnownAs: string[];
  movedTo: string | null;
  memorial: boolean;
  suspended: boolean;
  /** A Group's community (Lemmy, PieFed, Mbin); null for other actors. */
  community: CommunityDoc | null;
}

export interface CommunityDoc {
  /** The moderators collection: Lemmy and PieFed name it `attributedTo`, Mbin `moderators`. */
  moderators: string | null;
  postingRestrictedToMods: boolean;
  /** The community is NSFW. */
  sensitive: boolean;
}

export interface KeyDoc {
  id: string;
  owner: string;
  publicKeyPem: string;
}

export interface ActivityDoc {
  id: string;
  type: string;
  actor: string;
  object: string | Record<string, unknown> | null;
  objectId: string | null;
  objectType: string | null;
  target: string | null;
  to: string[];
  cc: string[];
}

interface CollectionDoc {
  id: string | null;
  totalItems: number | null;
  first: string | Record<string, unknown> | null;
}

// What a remote document can make us keep. Text is cut (a long bio is not a reason to refuse a profile); ids and
// URLs past MAX_URL are refused. The fetch layer caps the whole document at 2 MiB before any of this runs.
const MAX_URL = 4096;
const MAX_USERNAME = 512;
const MAX_NAME = 2000;
const MAX_SUMMARY = 50_000;
const MAX_FIELDS = 50;
const MAX_FIELD_NAME = 512;
const MAX_FIELD_VALUE = 4096;
const MAX_ATTACHMENTS = 64;
const MAX_ALIASES = 32;
const MAX_AUDIENCE = 1024;
const MAX_PEM = 16_384;
const MAX_TYPE = 128;
// How many entries of a "one or many" value are looked at when searching for a usable one (keys, images, urls).
const MAX_SCAN = 16;

export const AS_PUBLIC = 'https://www.w3.org/ns/activitystreams#Public';

export function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

export function asArray(x: unknown): unknown[] {
  if (x === undefined || x === null) return [];
  return Array.isArray(x) ? x : [x];
}

/** `x` itself when it is an absolute http(s) URL without credentials, else null. Kept byte-for-byte (not
 *  re-serialised) because ids are compared with the ones other documents carry. */
export function httpUrl(x: unknown): string | null {
  if (typeof x !== 'string' || x.length === 0 || x.length > MAX_URL) return null;
  let u: URL;
  try {
    u = new URL(x);
  } catch {
    return null;
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return null;
  if (u.username !== '' || u.password !== '') return null;
  return x;
}

const httpUrlSchema = z
  .string()
  .max(MAX_URL)
  .refine((s) => httpUrl(s) !== null, 'must be an http(s) URL');

/** string → itself; {id: string} → id; array → the first item, read the same way (one level only, so a deeply
 *  nested array cannot recurse); anything else → null. */
export function idOf(x: unknown): string | null {
  const first = Array.isArray(x) ? x[0] : x;
  if (typeof first === 'string') return first;
  if (isRecord(first) && typeof first.id === 'string') return first.id;
  return null;
}

/** An http(s) id of a reference (string or object with id). */
export function refUrl(x: unknown): string | null {
  return httpUrl(idOf(x));
}

function truncate(s: string, max: number): string {
  if (s.length <= max) return s;
  const last = s.charCodeAt(max - 1);
  // Never leave the first half of a surrogate pair at the end.
  return s.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}

/** A string cut to `max`, without NUL characters (PostgreSQL text refuses them), or null. */
export function text(x: unknown, max: number): string | null {
  if (typeof x !== 'string') return null;
  return truncate(x.includes('\u0000') ? x.replaceAll('\u0000', '') : x, max);
}

/** `name`/`summary` with the `nameMap`/`summaryMap` language map as fallback; blank becomes null. */
function displayText(raw: Record<string, unknown>, key: 'name' | 'summary', max: number): string | null {
  let value = text(raw[key], max);
  const map = raw[`${key}Map`];
  if (value === null && isRecord(map))
    value = text(
      Object.values(map).find((v) => typeof v === 'string'),
      max,
    );
  return value === null || value.trim() === '' ? null : value;
}

/** The first string of a type (a type may be an array in JSON-LD). */
export function typeName(t: unknown): string | null {
  const first = Array.isArray(t) ? t.find((x) => typeof x === 'string') : t;
  return typeof first === 'string' && first.length > 0 && first.length <= MAX_TYPE ? first : null;
}

export function hasType(t: unknown, name: string): boolean {
  return t === name || (Array.isArray(t) && t.slice(0, MAX_SCAN).includes(name));
}

function actorTypeOf(t: unknown): ActorType | null {
  for (const x of asArray(t).slice(0, MAX_SCAN)) {
    const found = ACTOR_TYPES.find((a) => a === x);
    if (found) return found;
  }
  return null;
}

/** The first usable href of a `url`: a string, a Link object, or an array of either. */
export function firstHref(x: unknown): string | null {
  for (const item of asArray(x).slice(0, MAX_SCAN)) {
    const href = typeof item === 'string' ? httpUrl(item) : isRecord(item) ? httpUrl(item.href) : null;
    if (href) return href;
  }
  return null;
}

/** The URL of an `icon`/`image`: an Image object (whose `url` is itself string, Link or array), an array of
 *  Images, or a bare URL. */
function imageUrl(x: unknown): string | null {
  for (const item of asArray(x).slice(0, MAX_SCAN)) {
    const url = typeof item === 'string' ? httpUrl(item) : isRecord(item) ? (firstHref(item.url) ?? httpUrl(item.href)) : null;
    if (url) return url;
  }
  return null;
}

function keyFrom(x: unknown): KeyDoc | null {
  if (!isRecord(x)) return null;
  const id = httpUrl(x.id);
  const owner = refUrl(x.owner);
  const pem = x.publicKeyPem;
  if (!id || !owner || typeof pem !== 'string' || pem.length === 0 || pem.length > MAX_PEM) return null;
  return { id, owner, publicKeyPem: pem };
}

/** The first key of `publicKey` (one object or an array, as Fedify sends for several keys) owned by `ownerId`. */
function ownedKey(x: unknown, ownerId: string): KeyDoc | null {
  for (const item of asArray(x).slice(0, MAX_SCAN)) {
    const key = keyFrom(item);
    if (key && key.owner === ownerId) return key;
  }
  return null;
}

function propertyValues(attachments: unknown[]): { name: string; value: string }[] {
  const fields: { name: string; value: string }[] = [];
  for (const a of attachments) {
    if (fields.length >= MAX_FIELDS) break;
    if (!isRecord(a) || !hasType(a.type, 'PropertyValue')) continue;
    const name = text(a.name, MAX_FIELD_NAME);
    const value = text(a.value, MAX_FIELD_VALUE);
    if (name !== null && value !== null) fields.push({ name, value });
  }
  return fields;
}

function isoDate(x: unknown): string | null {
  if (typeof x !== 'string' || x.length > 64) return null;
  const t = Date.parse(x);
  return Number.isFinite(t) ? new Date(t).toISOString() : null;
}

function boolOrNull(x: unknown): boolean | null {
  return typeof x === 'boolean' ? x : null;
}

function refList(x: unknown, max: number): string[] {
  const out: string[] = [];
  for (const item of asArray(x).slice(0, max)) {
    const url = refUrl(item);
    if (url) out.push(url);
  }
  return out;
}

const rawActorSchema = z
  .object({
    id: httpUrlSchema,
    type: z.union([z.string(), z.array(z.unknown())]).refine((t) => actorTypeOf(t) !== null, 'not an actor type'),
    preferredUsername: z.string().min(1).max(MAX_USERNAME),
    inbox: httpUrlSchema,
  })
  .loose();

function normaliseActor(raw: z.output<typeof rawActorSchema>): ActorDoc {
  const attachment = asArray(raw.attachment).slice(0, MAX_ATTACHMENTS);
  const endpoints = raw.endpoints;
  return {
    id: raw.id,
    type: actorTypeOf(raw.type)!,
    preferredUsername: raw.preferredUsername,
    name: displayText(raw, 'name', MAX_NAME),
    summary: displayText(raw, 'summary', MAX_SUMMARY),
    url: firstHref(raw.url),
    inbox: raw.inbox,
    // Misskey also repeats sharedInbox at the top level; endpoints is the standard place.
    sharedInbox: (isRecord(endpoints) ? refUrl(endpoints.sharedInbox) : null) ?? refUrl(raw.sharedInbox),
    outbox: refUrl(raw.outbox),
    followers: refUrl(raw.followers),
    following: refUrl(raw.following),
    featured: refUrl(raw.featured),
    publicKey: ownedKey(raw.publicKey, raw.id),
    icon: imageUrl(raw.icon),
    image: imageUrl(raw.image),
    manuallyApprovesFollowers: raw.manuallyApprovesFollowers === true,
    discoverable: boolOrNull(raw.discoverable),
    indexable: boolOrNull(raw.indexable),
    published: isoDate(raw.published),
    fields: propertyValues(attachment),
    attachment,
    alsoKnownAs: refList(raw.alsoKnownAs, MAX_ALIASES),
    movedTo: refUrl(raw.movedTo),
    memorial: raw.memorial === true,
    suspended: raw.suspended === true,
    community:
      actorTypeOf(raw.type) === 'Group'
        ? {
            moderators: refUrl(raw.attributedTo) ?? refUrl(raw.moderators),
            postingRestrictedToMods: raw.postingRestrictedToMods === true,
            sensitive: raw.sensitive === true,
          }
        : null,
  };
}

export const actorSchema: z.ZodType<ActorDoc> = rawActorSchema.transform(normaliseActor);

/** A fetched keyId: either an actor (Mastodon: `actor#main-key` returns the actor) or a bare key document
 *  (GoToSocial-style, with `owner`). Result says which. */
export const keyOrActorSchema: z.ZodType<{ kind: 'actor'; actor: ActorDoc } | { kind: 'key'; key: KeyDoc }> = z.unknown().transform((doc, ctx) => {
  const actor = actorSchema.safeParse(doc);
  if (actor.success) return { kind: 'actor' as const, actor: actor.data };
  // A key document proper (Misskey's `/publickey`: type Key with owner), or an actor stub that carries only
  // its key (GoToSocial's `/main-key`: id, type, preferredUsername, publicKey; no inbox, so not an actor).
  const stubId = isRecord(doc) && (doc.type === undefined || actorTypeOf(doc.type)) ? httpUrl(doc.id) : null;
  const key = keyFrom(doc) ?? (stubId && isRecord(doc) ? ownedKey(doc.publicKey, stubId) : null);
  if (key) return { kind: 'key' as const, key };
  for (const issue of actor.error.issues) ctx.issues.push({ code: 'custom', message: issue.message, path: issue.path, input: doc });
  return z.NEVER;
});

/** to/cc as a list of http(s) ids; the compact forms of the public collection are spelled out. */
export function audience(x: unknown): string[] {
  const out: string[] = [];
  for (const item of asArray(x).slice(0, MAX_AUDIENCE)) {
    const id = idOf(item);
    const full = id === 'as:Public' || id === 'Public' ? AS_PUBLIC : httpUrl(id);
    if (full) out.push(full);
  }
  return out;
}

const rawActivitySchema = z
  .object({
    id: httpUrlSchema,
    type: z.union([z.string(), z.array(z.unknown())]).refine((t) => typeName(t) !== null, 'type must be a string'),
    actor: z.union([z.string(), z.record(z.string(), z.unknown()), z.array(z.unknown())]).refine((a) => refUrl(a) !== null, 'actor must be an http(s) id'),
  })
  .loose();

function normaliseActivity(raw: z.output<typeof rawActivitySchema>): ActivityDoc {
  const first = Array.isArray(raw.object) ? raw.object[0] : raw.object;
  const object = typeof first === 'string' ? first : isRecord(first) ? first : null;
  return {
    id: raw.id,
    type: typeName(raw.type)!,
    actor: refUrl(raw.actor)!,
    object,
    objectId: refUrl(object),
    objectType: isRecord(object) ? typeName(object.type) : null,
    target: refUrl(raw.target),
    to: audience(raw.to),
    cc: audience(raw.cc),
  };
}

export const activitySchema: z.ZodType<ActivityDoc> = rawActivitySchema.transform(normaliseActivity);

const COLLECTION_TYPES = ['Collection', 'OrderedCollection', 'CollectionPage', 'OrderedCollectionPage'];

/** A followers/following/outbox collection, for its count and first page (a URL, or embedded as Akkoma does). */
export const orderedCollectionSchema: z.ZodType<CollectionDoc> = z
  .object({})
  .loose()
  .refine((c) => c.type === undefined || COLLECTION_TYPES.some((t) => hasType(c.type, t)), 'not a collection')
  .transform((raw) => {
    const n = raw.totalItems;
    return {
      id: httpUrl(raw.id),
      totalItems: typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? n : null,
      first: isRecord(raw.first) ? raw.first : httpUrl(raw.first),
    };
  });
