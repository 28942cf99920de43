// The documents the fake Lemmy (fake-lemmy.ts) serves and sends, each built from the Lemmy 0.19 fixture of its kind
// (test/fixtures/lemmy/, LemmyNet/lemmy crates/apub/assets/lemmy/ at 0.19.9, copied verbatim) with the fixture's
// hosts moved onto the fake's origin and the ids, actors and texts of the moment filled in. Where Lemmy 0.19.9's code
// writes what its fixture lacks (the Page's community Hashtag, the compat Announce{Page}), the code is followed.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export type Doc = Record<string, unknown>;

const FIXTURES = fileURLToPath(new URL('../../../test/fixtures/lemmy/', import.meta.url));
/** The hosts Lemmy's fixtures name; all of them become the fake's own origin when a fixture is loaded. */
const FIXTURE_ORIGINS = /https?:\/\/(?:enterprise\.lemmy\.ml|ds9\.lemmy\.ml|lemmy\.ml)/g;
/** What Lemmy 0.19 puts at the top of every document it serves or sends (crates/apub/src/lib.rs). */
export const LEMMY_CONTEXT = ['https://join-lemmy.org/context.json', 'https://www.w3.org/ns/activitystreams'];
export const LEMMY_VERSION = '0.19.9';
export const PUBLIC = 'https://www.w3.org/ns/activitystreams#Public';
export const AP_JSON = 'application/activity+json';
/** Lemmy 0.19's Page fields (protocol/objects/page.rs): what survives its parsing, and so its compat Announce{Page}. */
const PAGE_FIELDS = [
  'type',
  'id',
  'attributedTo',
  'to',
  'name',
  'cc',
  'content',
  'mediaType',
  'source',
  'attachment',
  'image',
  'sensitive',
  'published',
  'updated',
  'language',
  'audience',
  'tag',
];

/** A Lemmy fixture (path relative to crates/apub/assets/lemmy/), its hosts moved onto `origin`. */
export function lemmyFixture(path: string, origin = 'https://enterprise.lemmy.ml'): Doc {
  return JSON.parse(readFileSync(FIXTURES + path, 'utf8').replace(FIXTURE_ORIGINS, origin)) as Doc;
}

export const withContext = (doc: Doc): Doc => ({ '@context': LEMMY_CONTEXT, ...doc });
export const isRecord = (x: unknown): x is Doc => typeof x === 'object' && x !== null && !Array.isArray(x);
export const asArray = (x: unknown): unknown[] => (Array.isArray(x) ? x : x === undefined || x === null ? [] : [x]);
export const idOf = (x: unknown): string | null => (typeof x === 'string' ? x : isRecord(x) && typeof x['id'] === 'string' ? x['id'] : null);
const escapeHtml = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
/** Lemmy renders markdown; paragraphs of escaped text are all the fake's users write. */
const markdownToHtml = (md: string): string =>
  md
    .split(/\n{2,}/)
    .map((p) => `<p>${escapeHtml(p)}</p>\n`)
    .join('');

/** The actor fields a Person document needs. */
export interface PersonKeys {
  readonly name: string;
  readonly id: string;
  readonly inbox: string;
  readonly keyId: string;
  readonly publicKeyPem: string;
}

export interface CommunityIds {
  readonly name: string;
  readonly id: string;
  readonly inbox: string;
  readonly followers: string;
  readonly keyId: string;
}

export interface PostFields {
  readonly name: string;
  readonly url?: string | undefined;
  readonly body?: string | undefined;
}

export class LemmyDocuments {
  readonly community: CommunityIds;

  constructor(
    private readonly base: string,
    private readonly host: string,
    name: string,
    private readonly title: string,
  ) {
    const id = `${base}/c/${name}`;
    this.community = { name, id, inbox: `${id}/inbox`, followers: `${id}/followers`, keyId: `${id}#main-key` };
  }

  fixture(path: string): Doc {
    return lemmyFixture(path, this.base);
  }

  activityId(kind: string): string {
    return `${this.base}/activities/${kind.toLowerCase()}/${randomUUID()}`;
  }

  // ---- actors -------------------------------------------------------------------------------------------------------

  group(publicKeyPem: string): Doc {
    const g = this.fixture('objects/group.json');
    const c = this.community;
    delete g['icon'];
    delete g['image'];
    return withContext({
      ...g,
      id: c.id,
      preferredUsername: c.name,
      name: this.title,
      summary: `<p>${escapeHtml(this.title)}, a community on a fake Lemmy</p>\n`,
      source: { content: `${this.title}, a community on a fake Lemmy`, mediaType: 'text/markdown' },
      inbox: c.inbox,
      followers: c.followers,
      attributedTo: `${c.id}/moderators`,
      // Lemmy 0.19 writes the double slash itself (objects/community.rs); the fake serves both spellings.
      featured: `${c.id}//featured`,
      endpoints: { sharedInbox: `${this.base}/inbox` },
      outbox: `${c.id}/outbox`,
      publicKey: { id: c.keyId, owner: c.id, publicKeyPem },
    });
  }

  person(u: PersonKeys): Doc {
    const p = this.fixture('objects/person.json');
    delete p['icon'];
    delete p['image'];
    delete p['matrixUserId'];
    return withContext({
      ...p,
      id: u.id,
      preferredUsername: u.name,
      name: u.name,
      summary: `<p>${escapeHtml(u.name)} of the fake Lemmy</p>\n`,
      source: { content: `${u.name} of the fake Lemmy`, mediaType: 'text/markdown' },
      inbox: u.inbox,
      outbox: `${u.id}/outbox`,
      endpoints: { sharedInbox: `${this.base}/inbox` },
      publicKey: { id: u.keyId, owner: u.id, publicKeyPem: u.publicKeyPem },
    });
  }

  /** The site actor (Lemmy's instance.json), whose key signs the fake's fetches. */
  site(publicKeyPem: string): Doc {
    return withContext({
      ...this.fixture('objects/instance.json'),
      id: `${this.base}/`,
      name: 'Fake Lemmy',
      preferredUsername: this.host,
      inbox: `${this.base}/inbox`,
      outbox: `${this.base}/site_outbox`,
      publicKey: { id: `${this.base}/#main-key`, owner: `${this.base}/`, publicKeyPem },
    });
  }

  // ---- objects ------------------------------------------------------------------------------------------------------

  page(id: string, creator: string, p: PostFields, published: string, updated?: string): Doc {
    const page = this.fixture('objects/page.json');
    delete page['image'];
    delete page['language']; // undetermined: Lemmy leaves it out
    const doc: Doc = {
      ...page,
      id,
      attributedTo: creator,
      to: [this.community.id, PUBLIC],
      cc: [],
      audience: this.community.id,
      name: p.name,
      attachment: p.url ? [{ type: 'Link', href: p.url }] : [],
      sensitive: false,
      published,
      // objects/post.rs into_json: the community as a hashtag.
      tag: [{ href: id, name: `#${this.community.name}`, type: 'Hashtag' }],
    };
    if (p.body) {
      doc['content'] = markdownToHtml(p.body);
      doc['source'] = { content: p.body, mediaType: 'text/markdown' };
    } else {
      delete doc['content'];
      delete doc['source'];
    }
    if (updated) doc['updated'] = updated;
    return doc;
  }

  /** A comment replying to `parent` (a post or comment), its author named in cc and mentioned. */
  note(id: string, creator: string, parent: { readonly id: string; readonly creator: string }, text: string, published: string, updated?: string): Doc {
    const note = this.fixture('objects/note.json');
    delete note['language'];
    delete note['updated'];
    const doc: Doc = {
      ...note,
      id,
      attributedTo: creator,
      to: [PUBLIC],
      cc: [this.community.id, parent.creator],
      audience: this.community.id,
      inReplyTo: parent.id,
      content: markdownToHtml(text),
      source: { content: text, mediaType: 'text/markdown' },
      tag: [{ href: parent.creator, type: 'Mention', name: mentionName(parent.creator) }],
      distinguished: false,
      published,
    };
    if (updated) doc['updated'] = updated;
    return doc;
  }

  tombstone(id: string): Doc {
    return withContext({ ...this.fixture('objects/tombstone.json'), id });
  }

  // ---- collections --------------------------------------------------------------------------------------------------

  followers(count: number): Doc {
    return withContext({ ...this.fixture('collections/group_followers.json'), id: this.community.followers, totalItems: count, items: [] });
  }

  moderators(ids: readonly string[]): Doc {
    return withContext({ ...this.fixture('collections/group_moderators.json'), id: `${this.community.id}/moderators`, orderedItems: ids });
  }

  featured(): Doc {
    return withContext({ ...this.fixture('collections/group_featured_posts.json'), id: `${this.community.id}/featured`, totalItems: 0, orderedItems: [] });
  }

  /** The community's outbox: the Announce{Create{Page}} of its latest posts, newest first. */
  outbox(posts: readonly { readonly creator: string; readonly doc: Doc }[]): Doc {
    const items = posts.map((p) => this.announce({ ...this.create('create_page', p.creator), object: p.doc }));
    return withContext({ ...this.fixture('collections/group_outbox.json'), id: `${this.community.id}/outbox`, totalItems: items.length, orderedItems: items });
  }

  personOutbox(u: PersonKeys): Doc {
    return withContext({ ...this.fixture('collections/person_outbox.json'), id: `${u.id}/outbox`, orderedItems: [], totalItems: 0 });
  }

  // ---- activities ---------------------------------------------------------------------------------------------------

  /** A Create or Update by `actor` in the community, its object to be set. */
  create(which: 'create_page' | 'create_note' | 'update_page', actor: string): Doc {
    const a = this.fixture(`activities/create_or_update/${which}.json`);
    const c = this.community.id;
    return { ...a, actor, to: [PUBLIC], cc: [c], audience: c, id: this.activityId(which === 'update_page' ? 'Update' : 'Create') };
  }

  vote(kind: 'Like' | 'Dislike', actor: string, objectId: string): Doc {
    const f = this.fixture(kind === 'Like' ? 'activities/voting/like_note.json' : 'activities/voting/dislike_page.json');
    return { ...f, actor, object: objectId, audience: this.community.id, type: kind, id: this.activityId(kind) };
  }

  /**
   * Lemmy 0.19 undoes any vote with an Undo of a *new* Like (activities/voting/mod.rs: "Lemmy API doesn't distinguish
   * between Undo/Like and Undo/Dislike"): neither the id nor the type of the vote it takes back.
   */
  undoVote(undone: 'Like' | 'Dislike', actor: string, objectId: string): Doc {
    const f = this.fixture(undone === 'Like' ? 'activities/voting/undo_like_note.json' : 'activities/voting/undo_dislike_page.json');
    return { ...f, actor, object: this.vote('Like', actor, objectId), audience: this.community.id, type: 'Undo', id: this.activityId('Undo') };
  }

  delete(actor: string, objectId: string): Doc {
    const f = this.fixture('activities/deletion/delete_page.json');
    const c = this.community.id;
    return { ...f, actor, to: [PUBLIC], object: objectId, cc: [c], audience: c, type: 'Delete', id: this.activityId('Delete') };
  }

  /** The community's Accept of a Follow: the Follow as Lemmy parsed it (`to` null when the follower sent none). */
  accept(follow: Doc, follower: string): Doc {
    const embedded = {
      actor: follower,
      to: follow['to'] === undefined ? null : asArray(follow['to']),
      object: this.community.id,
      type: 'Follow',
      id: idOf(follow),
    };
    const f = this.fixture('activities/following/accept.json');
    return withContext({ ...f, actor: this.community.id, to: [follower], object: embedded, type: 'Accept', id: this.activityId('Accept') });
  }

  /** Lemmy's Announce of an activity: from the community, to Public, cc its followers; the inner without context. */
  announce(inner: Doc): Doc {
    const a = this.fixture('activities/community/announce_create_page.json');
    const { '@context': _dropped, ...object } = inner;
    return {
      ...a,
      actor: this.community.id,
      to: [PUBLIC],
      object,
      cc: [this.community.followers],
      type: 'Announce',
      id: `${this.base}/activities/announce/${String(inner['type']).toLowerCase()}/${randomUUID()}`,
    };
  }

  /**
   * Lemmy 0.19's compat Announce{Page} (activities/community/announce.rs), as JSON text: the Page as Lemmy parsed it,
   * given an activity id and the actor by its RawAnnouncableActivities wrapper, which serde writes before the Page's
   * own fields, the Page's `id` among them: the JSON names `id` twice, and readers keep the last (the Page's).
   */
  compatAnnounce(page: Doc, actor: string): string {
    const a = this.announce({ type: 'Page' });
    const fields = PAGE_FIELDS.filter((k) => page[k] !== undefined).map((k) => `${JSON.stringify(k)}:${JSON.stringify(page[k])}`);
    const object = `{"id":${JSON.stringify(this.activityId('Announce'))},"actor":${JSON.stringify(actor)},${fields.join(',')}}`;
    return JSON.stringify(withContext({ ...a, object: '\u0000object' })).replace('"\\u0000object"', object);
  }

  // ---- discovery ----------------------------------------------------------------------------------------------------

  /** Lemmy's WebFinger links (routes/webfinger.rs): a profile page and a self link typed Person or Group. */
  webfingerLinks(id: string, kind: 'Person' | 'Group'): Doc[] {
    return [
      { rel: 'http://webfinger.net/rel/profile-page', type: 'text/html', href: id },
      { rel: 'self', type: AP_JSON, href: id, properties: { 'https://www.w3.org/ns/activitystreams#type': kind } },
      ...(kind === 'Person' ? [{ rel: 'http://ostatus.org/schema/1.0/subscribe', template: `${this.base}/activitypub/externalInteraction?uri={uri}` }] : []),
    ];
  }

  nodeinfoLinks(): Doc {
    return { links: [{ rel: 'http://nodeinfo.diaspora.software/ns/schema/2.1', href: `${this.base}/nodeinfo/2.1` }] };
  }

  /** routes/nodeinfo.rs. */
  nodeinfo(users: number, posts: number, comments: number): Doc {
    return {
      version: '2.1',
      software: { name: 'lemmy', version: LEMMY_VERSION, repository: 'https://github.com/LemmyNet/lemmy', homepage: 'https://join-lemmy.org/' },
      protocols: ['activitypub'],
      usage: { users: { total: users, activeHalfyear: users, activeMonth: users }, localPosts: posts, localComments: comments },
      openRegistrations: true,
      services: { inbound: [], outbound: [] },
      metadata: {},
    };
  }
}

function mentionName(actorId: string): string {
  const u = new URL(actorId);
  return `@${u.pathname.split('/').pop()}@${u.host}`;
}
