// Lemmy 0.19's own ActivityPub fixtures (test/fixtures/lemmy/, copied verbatim from LemmyNet/lemmy
// crates/apub/assets/lemmy/), loaded with their servers moved onto a loopback peer: every Lemmy host becomes the
// peer's origin, a community (/c/name) and a person (/u/name) the peer's actor of that name (/users/name), and,
// with a salt, post, comment and activity ids are made unique for one test.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FakePeer } from './fake-actor-peer.js';

const ROOT = fileURLToPath(new URL('../../../test/fixtures/lemmy/', import.meta.url));
const LEMMY_HOSTS = /https?:\/\/(?:enterprise|ds9|voyager)\.lemmy\.ml/g;
const AS_PUBLIC = 'https://www.w3.org/ns/activitystreams#Public';

// biome-ignore lint/suspicious/noExplicitAny: fixtures are JSON read by tests
export type LemmyJson = any;

export interface RewriteOptions {
  /** Every community of the fixture becomes this one actor of the peer (Lemmy's fixtures name several). */
  readonly community?: string;
  /** Appended to post, comment and activity ids. */
  readonly salt?: string;
}

/** The fixture's text, as Lemmy wrote it. */
export function lemmyFixtureText(path: string): string {
  return readFileSync(`${ROOT}${path}`, 'utf8');
}

/** The fixture at `path` (relative to crates/apub/assets/lemmy/) with its ids on `origin`. */
export function lemmyFixture(path: string, origin: string, o: RewriteOptions = {}): LemmyJson {
  const o2 = origin.replace(/\/$/, '');
  const esc = o2.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  let text = lemmyFixtureText(path).replace(LEMMY_HOSTS, o2);
  text = text.replace(new RegExp(`${esc}/c/([A-Za-z0-9_]+)`, 'g'), (_m, name: string) => `${o2}/users/${o.community ?? name}`);
  text = text.replace(new RegExp(`${esc}/u/([A-Za-z0-9_]+)`, 'g'), `${o2}/users/$1`);
  if (o.salt) {
    text = text.replace(new RegExp(`(${esc}/(?:post|comment)/\\d+)`, 'g'), `$1-${o.salt}`);
    text = text.replace(new RegExp(`(${esc}/activities/[a-z_]+/[0-9a-f-]+)`, 'g'), `$1-${o.salt}`);
  }
  return JSON.parse(text);
}

/** What the group document needs beyond what the peer serves for every actor (its type and community fields). */
export function groupExtra(peer: FakePeer, community: string): Record<string, unknown> {
  const g = lemmyFixture('objects/group.json', peer.url, { community });
  const keep = ['type', 'name', 'summary', 'source', 'sensitive', 'attributedTo', 'postingRestrictedToMods', 'language', 'published', 'updated'];
  return Object.fromEntries(keep.filter((k) => k in g).map((k) => [k, g[k]]));
}

/** Adds the community (a Group, from objects/group.json) to the peer, with its moderators collection served. */
export async function addLemmyCommunity(peer: FakePeer, name: string, moderators: readonly string[]): Promise<string> {
  const group = await peer.addActor(name, { extra: groupExtra(peer, name) });
  const collection = lemmyFixture('collections/group_moderators.json', peer.url, { community: name });
  peer.serve({ ...collection, id: `${group.id}/moderators`, orderedItems: moderators });
  return group.id;
}

/** The community's Announce of `object` (shaped as Lemmy's announce_create_page.json), with a fresh id. */
export function announce(peer: FakePeer, groupId: string, object: unknown): LemmyJson {
  const a = lemmyFixture('activities/community/announce_create_page.json', peer.url);
  return { ...a, id: peer.newId('activities/announce'), actor: groupId, to: [AS_PUBLIC], cc: [`${groupId}/followers`], object };
}
