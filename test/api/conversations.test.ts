// Direct-message conversations over real HTTP: a direct post starts one conversation per participant (unread for
// the recipients, read for the sender), a reply moves it on, reading marks it read, removing hides it until the next
// message, deleting statuses moves the last status back or ends it; other visibilities never make one; Link pages;
// and a direct Note delivered from another server starts one too (and its Delete ends it).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, FED_ENV, type Json } from '../support/api.js';
import { startFakeActorPeer, type FakePeer } from '../support/fake-actor-peer.js';
import { createMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

const AS = 'https://www.w3.org/ns/activitystreams';

describe('conversations API', () => {
  let s: TestServer;
  let peer: FakePeer;
  const id: Record<string, string> = {};
  const token: Record<string, string> = {};

  const call = (who: string | undefined, method: string, path: string, body?: unknown) => api(s.url, who ? (token[who] ?? who) : undefined, method, path, body);
  const ok = async (who: string, method: string, path: string, body?: unknown): Promise<Json> => {
    const r = await call(who, method, path, body);
    assert.equal(r.status, 200, `${method} ${path}: ${JSON.stringify(r.body)}`);
    return r.body;
  };
  const conversations = (who: string, query = ''): Promise<Json[]> => ok(who, 'GET', `/api/v1/conversations${query}`);
  const dm = (who: string, status: string, inReplyTo?: string): Promise<Json> =>
    ok(who, 'POST', '/api/v1/statuses', { status, visibility: 'direct', ...(inReplyTo ? { in_reply_to_id: inReplyTo } : {}) });
  /** One line per conversation: who else is in it, read or not, and the text of its last status. */
  const summary = (list: Json[]) =>
    list.map(
      (c) =>
        `${c.accounts
          .map((a: Json) => a.acct)
          .sort()
          .join(',')} ${c.unread ? 'unread' : 'read'} ${c.last_status?.content.replace(/<[^>]+>/g, '') ?? 'none'}`,
    );

  before(async () => {
    [s, peer] = await Promise.all([startTestServer(FED_ENV), startFakeActorPeer()]);
    const members = await createMembers(s, ['ann', 'ben', 'cal', 'dee', 'eve', 'fin']);
    Object.assign(id, members.id);
    Object.assign(token, members.token);
    token['ann-notifications-only'] = await members.tokenFor('ann', ['read:notifications']);
    await peer.addActor('rem');
  });
  after(async () => {
    await Promise.all([s?.stop(), peer?.stop()]);
  });

  let first: Json;
  let reply: Json;

  it('starts a conversation for each participant of a direct message, unread for the recipients', async () => {
    first = await dm('ann', '@ben @cal lunch?');
    const [mine] = await conversations('ann');
    assert.match(mine.id, /^\d+$/);
    assert.deepEqual(summary([mine]), ['ben,cal read @ben @cal lunch?']);
    assert.equal(mine.last_status.id, first.id);
    assert.equal(mine.last_status.visibility, 'direct');
    assert.deepEqual(Object.keys(mine).sort(), ['accounts', 'id', 'last_status', 'unread']);
    assert.ok(
      mine.accounts.every((a: Json) => typeof a.display_name === 'string'),
      'participants are full accounts',
    );
    assert.deepEqual(summary(await conversations('ben')), ['ann,cal unread @ben @cal lunch?']);
    assert.deepEqual(summary(await conversations('cal')), ['ann,ben unread @ben @cal lunch?']);
    assert.deepEqual(await conversations('dee'), []);
  });

  it("marks a conversation read, only the member's own", async () => {
    const [bens] = await conversations('ben');
    assert.equal((await call('cal', 'POST', `/api/v1/conversations/${bens.id}/read`)).status, 404);
    const read = await ok('ben', 'POST', `/api/v1/conversations/${bens.id}/read`);
    assert.deepEqual({ ...read, last_status: read.last_status.id }, { ...bens, unread: false, last_status: first.id });
    assert.deepEqual(summary(await conversations('ben')), ['ann,cal read @ben @cal lunch?']);
    assert.deepEqual(summary(await conversations('cal')), ['ann,ben unread @ben @cal lunch?']);
    assert.equal((await call('ben', 'POST', '/api/v1/conversations/nope/read')).status, 404);
  });

  it("marks a conversation unread again (Mastodon's undocumented …/unread), only the member's own", async () => {
    const [bens] = await conversations('ben');
    assert.equal(bens.unread, false);
    assert.equal((await call('cal', 'POST', `/api/v1/conversations/${bens.id}/unread`)).status, 404);
    const unread = await ok('ben', 'POST', `/api/v1/conversations/${bens.id}/unread`);
    assert.equal(unread.unread, true);
    assert.deepEqual(summary(await conversations('ben')), ['ann,cal unread @ben @cal lunch?']);
    await ok('ben', 'POST', `/api/v1/conversations/${bens.id}/read`);
    assert.deepEqual(summary(await conversations('ben')), ['ann,cal read @ben @cal lunch?']);
    assert.equal((await call('ben', 'POST', '/api/v1/conversations/nope/unread')).status, 404);
  });

  it('moves the conversation on with a reply: the new last status, unread for the others, read for the sender', async () => {
    const [annsBefore] = await conversations('ann');
    const [bensBefore] = await conversations('ben');
    reply = await dm('ben', '@ann @cal yes', first.id);
    const [anns] = await conversations('ann');
    const [bens] = await conversations('ben');
    assert.equal(anns.id, annsBefore.id);
    assert.equal(bens.id, bensBefore.id);
    assert.deepEqual(summary([anns]), ['ben,cal unread @ann @cal yes']);
    assert.deepEqual(summary([bens]), ['ann,cal read @ann @cal yes']);
    assert.deepEqual(summary(await conversations('cal')), ['ann,ben unread @ann @cal yes']);
  });

  it('goes back to the previous status when the last is deleted, and away with the last status left', async () => {
    await ok('ben', 'DELETE', `/api/v1/statuses/${reply.id}`);
    assert.deepEqual(summary(await conversations('ann')), ['ben,cal unread @ben @cal lunch?']);
    assert.deepEqual(summary(await conversations('ben')), ['ann,cal read @ben @cal lunch?']);
    await ok('ann', 'DELETE', `/api/v1/statuses/${first.id}`);
    for (const who of ['ann', 'ben', 'cal']) assert.deepEqual(await conversations(who), [], who);
  });

  it('never makes a conversation of a post that is not direct', async () => {
    for (const visibility of ['public', 'unlisted', 'private']) await ok('ann', 'POST', '/api/v1/statuses', { status: `@ben ${visibility} words`, visibility });
    assert.deepEqual(await conversations('ann'), []);
    assert.deepEqual(await conversations('ben'), []);
  });

  it('hides a removed conversation until a new message in it arrives', async () => {
    const hello = await dm('ann', '@ben hi again');
    const [removed] = await conversations('ben');
    assert.deepEqual(await ok('ben', 'DELETE', `/api/v1/conversations/${removed.id}`), {});
    assert.deepEqual(await conversations('ben'), []);
    assert.deepEqual(summary(await conversations('ann')), ['ben read @ben hi again'], "the other side's stays");
    assert.equal((await call('ben', 'DELETE', `/api/v1/conversations/${removed.id}`)).status, 404);
    await dm('ann', '@ben still there?', hello.id);
    const [back] = await conversations('ben');
    assert.notEqual(back.id, removed.id);
    assert.deepEqual(summary([back]), ['ann unread @ben still there?']);
    assert.deepEqual(summary(await conversations('ann')), ['ben read @ben still there?']);
  });

  it('gives no conversation to a member who blocks the sender', async () => {
    await ok('dee', 'POST', `/api/v1/accounts/${id['ann']}/block`);
    await dm('ann', '@dee @ben a word');
    assert.deepEqual(await conversations('dee'), []);
    assert.deepEqual(summary(await conversations('ben')).slice(0, 1), ['ann,dee unread @dee @ben a word']);
  });

  it('pages by last status with Link headers', async () => {
    for (const who of ['ann', 'ben', 'cal']) await dm(who, `@eve from ${who}`);
    const page1 = await call('eve', 'GET', '/api/v1/conversations?limit=2');
    assert.deepEqual(summary(page1.body), ['cal unread @eve from cal', 'ben unread @eve from ben']);
    const next = /<([^>]+)>; rel="next"/.exec(page1.link ?? '')![1]!;
    assert.equal(new URL(next).searchParams.get('max_id'), page1.body[1].last_status.id);
    const page2 = await call('eve', 'GET', next.slice(s.url.length));
    assert.deepEqual(summary(page2.body), ['ann unread @eve from ann']);
    const prev = /<([^>]+)>; rel="prev"/.exec(page2.link ?? '')![1]!;
    assert.deepEqual(summary(await ok('eve', 'GET', prev.slice(s.url.length))), ['cal unread @eve from cal', 'ben unread @eve from ben']);
    const end = await call('eve', 'GET', /<([^>]+)>; rel="next"/.exec(page2.link ?? '')![1]!.slice(s.url.length));
    assert.deepEqual([end.body, end.link], [[], null]);
  });

  it('starts a conversation for a direct message from another server, and ends it on its Delete', async () => {
    const rem = peer.actor('rem');
    const fin = `${s.url}/users/fin`;
    const note = {
      id: peer.newId('notes'),
      type: 'Note',
      attributedTo: rem.id,
      to: [fin],
      cc: [],
      content: '<p>psst</p>',
      tag: [{ type: 'Mention', href: fin, name: '@fin' }],
    };
    const create = { '@context': AS, id: `${note.id}/activity`, type: 'Create', actor: rem.id, to: note.to, cc: [], object: note };
    assert.equal((await peer.signedPost(`${s.url}/inbox`, create, { actor: 'rem' })).status, 202);
    let conv: Json;
    await eventually(async () => {
      [conv] = await conversations('fin');
      assert.ok(conv, 'no conversation yet');
    });
    assert.deepEqual(summary([conv]), [`rem@${peer.host} unread psst`]);
    assert.equal(conv.last_status.uri, note.id);
    // fin answers in the thread: the same conversation, read on fin's side.
    const answer = await dm('fin', `@rem@${peer.host} got it`, conv.last_status.id);
    const [after] = await conversations('fin');
    assert.equal(after.id, conv.id);
    assert.deepEqual(summary([after]), [`rem@${peer.host} read @rem got it`]);
    assert.equal(after.last_status.id, answer.id);
    await ok('fin', 'DELETE', `/api/v1/statuses/${answer.id}`);
    const del = { '@context': AS, id: peer.newId('deletes'), type: 'Delete', actor: rem.id, object: { id: note.id, type: 'Tombstone' } };
    assert.equal((await peer.signedPost(`${s.url}/inbox`, del, { actor: 'rem' })).status, 202);
    await eventually(async () => assert.deepEqual(await conversations('fin'), []));
  });

  it('needs read:statuses to list and write:conversations to change', async () => {
    assert.equal((await call(undefined, 'GET', '/api/v1/conversations')).status, 401);
    assert.equal((await call('ann-notifications-only', 'GET', '/api/v1/conversations')).status, 403);
    const [c] = await conversations('ann');
    assert.equal((await call('ann-notifications-only', 'POST', `/api/v1/conversations/${c.id}/read`)).status, 403);
    assert.equal((await call('ann-notifications-only', 'DELETE', `/api/v1/conversations/${c.id}`)).status, 403);
  });
});
