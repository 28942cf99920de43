// Outbox items (reference/history.md P15–P26, P36): what is imported, what is fetched first, and what is only
// counted. Every case walks a fake origin's outbox with a real HistoryRunner into a real database, and reads the
// result as a member would (the account's statuses, a status by id, notifications).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { StatusStore } from '../../src/store/statuses.js';
import { FED_ENV, api, type Json } from '../support/api.js';
import { plain, remoteAccount, runHistory, setBareIri, statusesOf, TestLedger } from '../support/history-harness.js';
import { startHistoryOrigin, type HistoryOrigin } from '../support/history-origin.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';

const PUBLIC = 'https://www.w3.org/ns/activitystreams#Public';

describe('remote history: items (P15–P26, P36)', () => {
  let s: TestServer;
  let o: HistoryOrigin;
  let elsewhere: HistoryOrigin;
  let m: LocalMembers;
  let n = 0;

  before(async () => {
    s = await startTestServer(FED_ENV);
    o = await startHistoryOrigin();
    elsewhere = await startHistoryOrigin();
    m = await createMembers(s, ['reader', 'poster']);
  });
  after(async () => {
    await o.close();
    await elsewhere.close();
    await s.stop();
  });

  /** A fresh actor whose outbox is one page of `items(actorId)`. */
  async function withOutbox(items: (id: string) => unknown[]) {
    const name = `item${++n}`;
    const id = o.actor(name);
    o.serve(`/users/${name}/outbox`, { json: { id: `${id}/outbox`, type: 'OrderedCollectionPage', orderedItems: items(id) } });
    return { name, id, account: await remoteAccount(s, id) };
  }

  const note = (actorId: string, i: number, extra: Record<string, unknown> = {}) => ({
    id: `${actorId}/statuses/${i}`,
    type: 'Note',
    attributedTo: actorId,
    to: [PUBLIC],
    cc: [`${actorId}/followers`],
    content: `<p>post ${i}</p>`,
    published: '2024-01-05T12:00:00Z',
    ...extra,
  });
  const create = (actorId: string, object: unknown, extra: Record<string, unknown> = {}) => ({
    id: `${typeof object === 'string' ? object : (object as { id: string }).id}/activity`,
    type: 'Create',
    actor: actorId,
    to: [PUBLIC],
    object,
    ...extra,
  });

  const seen = async (accountId: string): Promise<Json[]> => statusesOf(s, m.token['reader']!, accountId);
  const texts = async (accountId: string): Promise<string[]> => (await seen(accountId)).map((st) => plain(st.content));

  it('P15: a Create of a bare IRI is skipped but counted, unless bare IRIs are resolved: then 5 fetches per page, signed', async () => {
    await setBareIri(s, false);
    const a = await withOutbox((id) => Array.from({ length: 7 }, (_, i) => create(id, `${id}/statuses/${i + 1}`)));
    for (let i = 1; i <= 7; i++) o.serve(`/users/${a.name}/statuses/${i}`, { json: note(a.id, i) });
    const off = await runHistory(s, a.account);
    assert.deepEqual(off.outcome, { kind: 'complete' });
    assert.deepEqual([off.ledger.examined, off.ledger.imported], [7, 0]);
    assert.equal(o.requests(`/users/${a.name}/statuses/1`), 0);

    await setBareIri(s, true);
    try {
      const on = await runHistory(s, a.account);
      assert.deepEqual([on.ledger.examined, on.ledger.imported], [7, 5]);
      assert.deepEqual(await texts(a.account.id), ['post 5', 'post 4', 'post 3', 'post 2', 'post 1']);
      assert.equal(o.requests(`/users/${a.name}/statuses/6`), 0);
      assert.ok(o.signed(`/users/${a.name}/statuses/1`));
    } finally {
      await setBareIri(s, false);
    }
  });

  it('P16: an inline Note is trusted only when it is the actor’s own on its origin; others are never fetched elsewhere', async () => {
    const a = await withOutbox((id) => [
      create(id, note(id, 1)),
      // Attributed to another actor of the same origin: not taken on its word (fetched only when bare IRIs are on).
      create(id, note(id, 2, { attributedTo: `${o.url}/users/someone-else` })),
      // A copy of a post of another origin: never imported from here, never fetched.
      create(id, note(`${elsewhere.url}/users/fern`, 3)),
    ]);
    const { ledger } = await runHistory(s, a.account);
    assert.deepEqual([ledger.examined, ledger.imported], [3, 1]);
    assert.deepEqual(await texts(a.account.id), ['post 1']);
    assert.equal(o.requests(`/users/${a.name}/statuses/1`), 0, 'the trusted inline copy is not fetched again');
    assert.equal(elsewhere.requests(), 0);
  });

  it('P17: bare objects without a Create are the actor’s posts when attributed to it; stubs are fetched when allowed', async () => {
    await setBareIri(s, true);
    try {
      const a = await withOutbox((id) => [note(id, 1), note(id, 2, { attributedTo: `${o.url}/users/wall-poster` }), { id: `${id}/statuses/3` }]);
      o.serve(`/users/${a.name}/statuses/3`, { json: note(a.id, 3) });
      const { ledger } = await runHistory(s, a.account);
      assert.deepEqual([ledger.examined, ledger.imported], [3, 2]);
      assert.deepEqual(await texts(a.account.id), ['post 3', 'post 1']);
    } finally {
      await setBareIri(s, false);
    }
  });

  it('P18: the actor’s Announce becomes a boost only of a post held here; nothing is fetched from another origin', async () => {
    const local = await api(s.url, m.token['poster'], 'POST', '/api/v1/statuses', { status: 'held here', visibility: 'public' });
    assert.equal(local.status, 200);
    const heldUri: string = local.body.uri;
    const a = await withOutbox((id) => [
      { id: `${id}/statuses/9/activity`, type: 'Announce', actor: id, to: [PUBLIC], cc: [`${id}/followers`], object: heldUri },
      { id: `${id}/statuses/8/activity`, type: 'Announce', actor: id, to: [PUBLIC], object: `${elsewhere.url}/users/fern/statuses/1` },
    ]);
    const { ledger } = await runHistory(s, a.account);
    assert.deepEqual([ledger.examined, ledger.imported], [2, 1]);
    const statuses = await seen(a.account.id);
    assert.equal(statuses.length, 1);
    assert.equal(statuses[0].reblog?.id, local.body.id);
    assert.equal(elsewhere.requests(), 0);
    // The boost of a member's post notifies nobody (history is never an event).
    const notes = await api(s.url, m.token['poster'], 'GET', '/api/v1/notifications');
    assert.deepEqual(notes.body, []);
  });

  it('P19: Like, EmojiReact, Update, Delete, Add, Remove, Follow, Answer, Tombstone are counted and never acted on', async () => {
    const a = await withOutbox((id) => [create(id, note(id, 1))]);
    await runHistory(s, a.account);
    const [before] = await seen(a.account.id);
    const held = `${a.id}/statuses/1`;
    const others = ['Like', 'EmojiReact', 'Add', 'Remove', 'Follow'].map((type, i) => ({ id: `${a.id}/act/${i}`, type, actor: a.id, object: held }));
    o.serve(`/users/${a.name}/outbox`, {
      json: {
        type: 'OrderedCollectionPage',
        orderedItems: [
          ...others,
          { id: `${a.id}/act/u`, type: 'Update', actor: a.id, object: note(a.id, 1, { content: '<p>edited</p>', updated: '2024-02-01T00:00:00Z' }) },
          { id: `${a.id}/act/d`, type: 'Delete', actor: a.id, object: held },
          { id: `${a.id}/act/v`, type: 'Answer', actor: a.id, object: held },
          { id: `${a.id}/act/t`, type: 'Tombstone' },
        ],
      },
    });
    const { ledger } = await runHistory(s, a.account);
    assert.deepEqual([ledger.examined, ledger.imported], [9, 0]);
    const after = await seen(a.account.id);
    assert.deepEqual(after, [before]);
    assert.equal(plain(after[0].content), 'post 1');
  });

  it('P20: a Create by another actor, or with its activity id on another host, is refused', async () => {
    const a = await withOutbox((id) => [
      create(`${o.url}/users/wall-poster`, note(id, 1)),
      { ...create(id, note(id, 2)), id: `${elsewhere.url}/activities/2` },
      create(id, note(id, 3)),
    ]);
    const { ledger } = await runHistory(s, a.account);
    assert.deepEqual([ledger.examined, ledger.imported], [3, 1]);
    assert.deepEqual(await texts(a.account.id), ['post 3']);
  });

  it('P21: Article, Page, Question, Video, Image, Audio and Event are read as Mastodon reads them', async () => {
    const a = await withOutbox((id) => [
      create(id, note(id, 1, { type: 'Article', name: 'A title', content: '<p>article body</p>' })),
      create(id, note(id, 2, { type: 'Page', content: '<p>a page</p>' })),
      create(
        id,
        note(id, 3, {
          type: 'Question',
          content: '<p>tea or coffee?</p>',
          oneOf: [
            { type: 'Note', name: 'tea', replies: { type: 'Collection', totalItems: 4 } },
            { type: 'Note', name: 'coffee', replies: { type: 'Collection', totalItems: 6 } },
          ],
          endTime: '2024-01-06T12:00:00Z',
        }),
      ),
      create(id, note(id, 4, { type: 'Video', name: 'A heron', content: undefined, url: `${id}/videos/4` })),
      create(id, note(id, 5, { type: 'Image', content: '<p>an image</p>' })),
      create(id, note(id, 6, { type: ['Audio'], content: '<p>a song</p>' })),
      create(id, note(id, 7, { type: 'Event', name: 'A meetup', content: '<p>come along</p>' })),
    ]);
    const { ledger } = await runHistory(s, a.account);
    assert.deepEqual([ledger.examined, ledger.imported], [7, 7]);
    const byText = new Map((await seen(a.account.id)).map((st) => [plain(st.content), st]));
    assert.ok(byText.has('article body') && byText.has('a page') && byText.has('an image') && byText.has('a song') && byText.has('come along'));
    const poll = byText.get('tea or coffee?')?.poll;
    assert.deepEqual(
      poll?.options.map((x: Json) => [x.title, x.votes_count]),
      [
        ['tea', 4],
        ['coffee', 6],
      ],
    );
    const video = [...byText.values()].find((st) => st.uri === `${a.id}/statuses/4`);
    assert.match(video.content, /A heron/);
    assert.match(video.content, new RegExp(`href="${a.id}/videos/4"`));
  });

  it('P22: public and unlisted (in any of its spellings) are kept; followers-only and direct posts are not', async () => {
    const a = await withOutbox((id) => [
      create(id, note(id, 1, { to: ['as:Public'], cc: [] })),
      create(id, note(id, 2, { to: [`${id}/followers`], cc: ['Public'] })),
      create(id, note(id, 3, { to: [`${id}/followers`], cc: [] })),
      create(id, note(id, 4, { to: [`${s.url}/users/reader`], cc: [] })),
    ]);
    const { ledger } = await runHistory(s, a.account);
    assert.deepEqual([ledger.examined, ledger.imported], [4, 2]);
    assert.deepEqual(
      (await seen(a.account.id)).map((st) => [plain(st.content), st.visibility]),
      [
        ['post 2', 'unlisted'],
        ['post 1', 'public'],
      ],
    );
  });

  it('P23, P24: no parent, quote or mentioned actor is fetched, and a mentioned member gets no notification', async () => {
    const a = await withOutbox((id) => [
      create(
        id,
        note(id, 1, {
          inReplyTo: `${o.url}/users/parent/statuses/1`,
          quote: `${elsewhere.url}/users/q/statuses/1`,
          tag: [
            { type: 'Mention', href: `${s.url}/users/reader`, name: '@reader' },
            { type: 'Mention', href: `${elsewhere.url}/users/unknown`, name: '@unknown' },
            { type: 'Hashtag', name: '#herons' },
          ],
        }),
      ),
    ]);
    const { ledger } = await runHistory(s, a.account);
    assert.equal(ledger.imported, 1);
    const [st] = await seen(a.account.id);
    assert.equal(st.in_reply_to_id, null);
    assert.deepEqual(
      st.mentions.map((x: Json) => x.acct),
      ['reader'],
    );
    assert.deepEqual(
      st.tags.map((x: Json) => x.name),
      ['herons'],
    );
    assert.equal(o.requests('/users/parent/statuses/1'), 0);
    assert.equal(elsewhere.requests(), 0);
    assert.deepEqual((await api(s.url, m.token['reader'], 'GET', '/api/v1/notifications')).body, []);
  });

  it('P25: a date in the future is not believed; a missing one is now', async () => {
    const before = Date.now();
    const a = await withOutbox((id) => [create(id, note(id, 1, { published: '2999-01-01T00:00:00Z' })), create(id, note(id, 2, { published: undefined }))]);
    await runHistory(s, a.account);
    const dates = (await seen(a.account.id)).map((st) => Date.parse(st.created_at));
    assert.equal(dates.length, 2);
    for (const d of dates) assert.ok(d >= before - 1000 && d <= Date.now() + 1000, new Date(d).toISOString());
  });

  it('P26: a post already here keeps its state (a delivered post stays as delivered, its text untouched)', async () => {
    const name = `item${++n}`;
    const id = o.actor(name);
    const account = await remoteAccount(s, id);
    const delivered = await new StatusStore(s.app.db).create({
      accountId: account.id,
      uri: `${id}/statuses/1`,
      url: null,
      text: '',
      content: '<p>as delivered</p>',
      spoilerText: '',
      visibility: 'public',
      sensitive: false,
      language: null,
      inReplyToId: null,
      inReplyToAccountId: null,
      inReplyToUri: null,
      reblogOfId: null,
      local: false,
      mentionIds: [],
      tags: [],
    });
    o.serve(`/users/${name}/outbox`, { json: { type: 'OrderedCollectionPage', orderedItems: [create(id, note(id, 1, { content: '<p>outbox copy</p>' }))] } });
    const { ledger } = await runHistory(s, account);
    assert.deepEqual([ledger.examined, ledger.imported], [1, 0]);
    const byId = await api(s.url, m.token['reader'], 'GET', `/api/v1/statuses/${delivered.status.id}`);
    assert.equal(plain(byId.body.content), 'as delivered');
    assert.equal((await new StatusStore(s.app.db).byId(delivered.status.id))?.history, false);
  });

  it('attachments and polls come with the post; a page that fails to commit imports nothing of it, media included', async () => {
    const a = await withOutbox((id) => [
      create(id, note(id, 1, { attachment: [{ type: 'Document', mediaType: 'image/png', url: `${id}/media/1.png`, name: 'a heron' }] })),
    ]);
    const crashed = new TestLedger(s.app.db, a.account.outboxUrl!);
    crashed.crashAfterWork = true;
    await assert.rejects(runHistory(s, a.account, { ledger: crashed }), /crash mid-page/);
    assert.deepEqual(await seen(a.account.id), []);
    const lost = new TestLedger(s.app.db, a.account.outboxUrl!);
    lost.leaseLost = true;
    assert.deepEqual((await runHistory(s, a.account, { ledger: lost })).outcome, { kind: 'lease_lost' });
    assert.deepEqual(await seen(a.account.id), []);

    const { ledger } = await runHistory(s, a.account);
    assert.equal(ledger.imported, 1);
    const [st] = await seen(a.account.id);
    assert.equal(st.media_attachments.length, 1);
    assert.equal(st.media_attachments[0].description, 'a heron');
    assert.equal(st.media_attachments[0].remote_url, `${a.id}/media/1.png`);
  });

  it('P36 and actor types: a deleted actor is not fetched from (federation_policy); a Group’s outbox is refused', async () => {
    const a = await withOutbox((id) => [create(id, note(id, 1))]);
    await s.app.federation.accounts.markDeleted(a.account.id);
    const gone = (await s.app.federation.accounts.byId(a.account.id))!;
    assert.deepEqual((await runHistory(s, gone)).outcome, { kind: 'unsupported', reason: 'federation_policy' });
    assert.equal(o.requests(`/users/${a.name}/outbox`), 0);

    const group = o.actor(`group${++n}`, { type: 'Group' });
    const account = await remoteAccount(s, group);
    assert.deepEqual((await runHistory(s, account)).outcome, { kind: 'unsupported', reason: 'actor_type' });
  });
});
