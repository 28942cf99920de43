// Remote posts for the remote history tests: Notes and Announces a fake actor peer delivers through real signed POSTs,
// history posts stored as the importer stores them (StatusStore.create with history: true), follows of peer actors
// accepted by the peer, and every page of a paged client-API list.
import assert from 'node:assert/strict';
import { StatusStore } from '../../src/store/statuses.js';
import { api, type Json } from './api.js';
import type { FakePeer } from './fake-actor-peer.js';
import type { TestServer } from './server.js';
import { eventually } from './wait.js';

const AS = 'https://www.w3.org/ns/activitystreams';
export const PUBLIC = `${AS}#Public`;

export interface RemotePost {
  readonly uri: string;
  /** The peer actor's name. */
  readonly actor: string;
  readonly visibility: 'public' | 'unlisted';
  readonly text: string;
  readonly tags: readonly string[];
  /** Local members' usernames it mentions. */
  readonly mentions: readonly string[];
  /** The post it replies to (its uri). */
  readonly inReplyTo: string | null;
  readonly published: Date;
}

export class HistoryFixture {
  readonly statuses: StatusStore;
  constructor(
    readonly s: TestServer,
    readonly peer: FakePeer,
  ) {
    this.statuses = new StatusStore(s.app.db);
  }

  memberUri(name: string): string {
    return `${this.s.url}/users/${name}`;
  }

  /** The Note of a post as its server would send it. */
  note(p: RemotePost): Json {
    const actor = this.peer.actor(p.actor);
    const followers = `${actor.id}/followers`;
    const mentioned = p.mentions.map((m) => this.memberUri(m));
    return {
      '@context': AS,
      id: p.uri,
      type: 'Note',
      attributedTo: actor.id,
      content: `<p>${p.text}</p>`,
      published: p.published.toISOString(),
      to: p.visibility === 'public' ? [PUBLIC] : [followers],
      cc: [...(p.visibility === 'public' ? [followers] : [PUBLIC]), ...mentioned],
      inReplyTo: p.inReplyTo,
      tag: [
        ...p.tags.map((t) => ({ type: 'Hashtag', name: `#${t}`, href: `${this.peer.url}/tags/${t}` })),
        ...p.mentions.map((m, i) => ({ type: 'Mention', name: `@${m}`, href: mentioned[i] })),
      ],
    };
  }

  /** POSTs an activity to Stoa's shared inbox, signed by the peer actor. */
  async deliver(actor: string, activity: Json): Promise<void> {
    const r = await this.peer.signedPost(`${this.s.url}/inbox`, activity, { actor });
    assert.equal(r.status, 202, `${activity.type} from ${actor}: ${r.status} ${JSON.stringify(r.body)}`);
  }

  /** Delivers the post's Create and waits until Stoa holds it as a delivered post. */
  async deliverCreate(p: RemotePost): Promise<string> {
    const actor = this.peer.actor(p.actor);
    const note = this.note(p);
    await this.deliver(p.actor, { '@context': AS, id: `${p.uri}/activity`, type: 'Create', actor: actor.id, to: note.to, cc: note.cc, object: note });
    return this.delivered(p.uri);
  }

  /** Delivers an Announce of `objectUri` by the actor (public) and waits until its boost is a delivered row. */
  async deliverAnnounce(actor: string, uri: string, objectUri: string): Promise<string> {
    const a = this.peer.actor(actor);
    await this.deliver(actor, { '@context': AS, id: uri, type: 'Announce', actor: a.id, to: [PUBLIC], cc: [`${a.id}/followers`], object: objectUri });
    return this.delivered(uri);
  }

  /** The id of the status with this uri once it is held and not (or no longer) history. */
  async delivered(uri: string): Promise<string> {
    let id = '';
    await eventually(async () => {
      const s = await this.statuses.byUri(uri);
      assert.ok(s && !s.history, `${uri} is not held as a delivered post`);
      id = s.id;
    });
    return id;
  }

  /** Stores the post as the history importer does: no notification, no fan-out, its id made from its age. */
  async storeHistory(p: RemotePost, accountId: string, memberIds: Readonly<Record<string, string>>): Promise<string> {
    const parent = p.inReplyTo ? await this.statuses.byUri(p.inReplyTo) : undefined;
    const { status, created } = await this.statuses.create({
      accountId,
      uri: p.uri,
      url: null,
      text: '',
      content: `<p>${p.text}</p>`,
      spoilerText: '',
      visibility: p.visibility,
      sensitive: false,
      language: null,
      inReplyToId: parent?.id ?? null,
      inReplyToAccountId: parent?.accountId ?? null,
      inReplyToUri: p.inReplyTo,
      local: false,
      history: true,
      createdAt: p.published,
      mentionIds: p.mentions.map((m) => memberIds[m]!),
      tags: [...p.tags],
    });
    assert.ok(created && status.history);
    return status.id;
  }

  /** The actor's boost of a held status as the importer stores it (an Announce in its outbox). */
  async storeHistoryBoost(uri: string, accountId: string, boostedId: string, published: Date): Promise<string> {
    const { status, created } = await this.statuses.create({
      accountId,
      uri,
      url: null,
      text: '',
      content: '',
      spoilerText: '',
      visibility: 'public',
      sensitive: false,
      language: null,
      inReplyToId: null,
      inReplyToAccountId: null,
      inReplyToUri: null,
      reblogOfId: boostedId,
      local: false,
      history: true,
      createdAt: published,
      mentionIds: [],
      tags: [],
    });
    assert.ok(created && status.history);
    return status.id;
  }

  /** Stoa's account id for the peer actor (resolved through WebFinger the first time). */
  async accountId(token: string, actor: string): Promise<string> {
    const r = await api(this.s.url, token, 'GET', `/api/v1/accounts/lookup?acct=${encodeURIComponent(`${actor}@${this.peer.host}`)}`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.id as string;
  }

  /** The member follows the peer actor (notify: `status` notifications of its posts); the peer accepts. */
  async follow(token: string, member: string, actor: string, notify = false): Promise<void> {
    const id = await this.accountId(token, actor);
    const r = await api(this.s.url, token, 'POST', `/api/v1/accounts/${id}/follow`, { notify });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const a = this.peer.actor(actor);
    const follow = await this.peer.waitForPost((p) => p.body?.['type'] === 'Follow' && p.body['actor'] === this.memberUri(member) && p.body['object'] === a.id);
    await this.peer.signedPost(
      `${this.memberUri(member)}/inbox`,
      { '@context': AS, id: this.peer.newId('accepts'), type: 'Accept', actor: a.id, object: follow.body },
      { actor },
    );
    await eventually(async () => {
      const rel = await api(this.s.url, token, 'GET', `/api/v1/accounts/relationships?id[]=${id}`);
      assert.equal(rel.body[0].following, true);
    });
  }
}

/** Every item of a paged client-API list, following its Link rel="next" (at most 50 pages). */
export async function everyPage(base: string, token: string | undefined, path: string): Promise<Json[]> {
  const out: Json[] = [];
  let next: string | null = path.includes('limit=') ? path : `${path}${path.includes('?') ? '&' : '?'}limit=40`;
  for (let i = 0; next && i < 50; i++) {
    const r = await api(base, token, 'GET', next);
    assert.equal(r.status, 200, `${next}: ${r.status} ${r.text}`);
    const items: Json[] = Array.isArray(r.body) ? r.body : r.body.notification_groups;
    if (items.length === 0) break;
    out.push(...items);
    const link = /<([^>]+)>;\s*rel="next"/.exec(r.link ?? '');
    next = link ? new URL(link[1]!).pathname + new URL(link[1]!).search : null;
  }
  return out;
}
