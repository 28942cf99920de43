// Collection shapes (reference/history.md P1–P13): however an outbox and its pages are shaped, the walk reads their
// items, fetches each document once, ends a loop or an endless `next` as complete (never as an error), dedups by id
// and never believes totalItems. Each case is a fresh actor on a fake origin; what a member then sees is read
// through the client API.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FED_ENV } from '../support/api.js';
import { plain, remoteAccount, runHistory, statusesOf } from '../support/history-harness.js';
import { startHistoryOrigin, type HistoryOrigin } from '../support/history-origin.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';

const PUBLIC = 'https://www.w3.org/ns/activitystreams#Public';

describe('remote history: collection shapes (P1–P13)', () => {
  let s: TestServer;
  let o: HistoryOrigin;
  let m: LocalMembers;
  let n = 0;

  before(async () => {
    s = await startTestServer(FED_ENV);
    o = await startHistoryOrigin();
    m = await createMembers(s, ['reader']);
  });
  after(async () => {
    await o.close();
    await s.stop();
  });

  /** A fresh actor; `outbox` is its outbox path. */
  function actor(): { name: string; id: string; outbox: string; path: (q?: string) => string } {
    const name = `shape${++n}`;
    const id = `{origin}/users/${name}`;
    return { name, id, outbox: `/users/${name}/outbox`, path: (q = '') => `/users/${name}/outbox${q}` };
  }

  /** A Create of a public Note by the actor, as Mastodon writes it. */
  function post(actorId: string, i: number, published = `2024-01-${String(10 + (i % 18)).padStart(2, '0')}T12:00:00Z`) {
    const id = `${actorId}/statuses/${i}`;
    return {
      id: `${id}/activity`,
      type: 'Create',
      actor: actorId,
      to: [PUBLIC],
      object: { id, type: 'Note', attributedTo: actorId, to: [PUBLIC], cc: [], content: `<p>post ${i}</p>`, published },
    };
  }

  async function texts(accountId: string): Promise<string[]> {
    return (await statusesOf(s, m.token['reader']!, accountId)).map((st) => plain(st.content));
  }

  async function start(a: ReturnType<typeof actor>) {
    return remoteAccount(s, o.actor(a.name).replace('{origin}', o.url));
  }

  it('P1: an outbox with only `first` as an IRI takes two documents, each fetched once', async () => {
    const a = actor();
    o.serve(a.outbox, { json: { id: `${a.id}/outbox`, type: 'OrderedCollection', totalItems: 3, first: `${a.id}/outbox?page=1` } });
    o.serve(a.path('?page=1'), {
      json: { id: `${a.id}/outbox?page=1`, type: 'OrderedCollectionPage', orderedItems: [post(a.id, 1), post(a.id, 2)], next: `${a.id}/outbox?page=2` },
    });
    const account = await start(a);
    const { outcome, ledger } = await runHistory(s, account);
    assert.deepEqual(outcome, { kind: 'partial' });
    assert.deepEqual(
      ledger.pages.map((p) => [p.nextCursor, p.examined, p.imported]),
      [
        [`${o.url}/users/${a.name}/outbox?page=1`, 0, 0],
        [`${o.url}/users/${a.name}/outbox?page=2`, 2, 2],
      ],
    );
    assert.equal(o.requests(a.outbox), 1);
    assert.equal(o.requests(a.path('?page=1')), 1);
    assert.equal(o.requests(a.path('?page=2')), 0);
    assert.deepEqual(await texts(account.id), ['post 2', 'post 1']);
  });

  it('P2: an embedded first page is read with the outbox and never fetched; the walk goes on from its next', async () => {
    const a = actor();
    o.serve(a.outbox, {
      json: {
        id: `${a.id}/outbox`,
        type: 'OrderedCollection',
        first: { id: `${a.id}/outbox?page=1`, type: 'OrderedCollectionPage', orderedItems: [post(a.id, 1)], next: `${a.id}/outbox?page=2` },
      },
    });
    o.serve(a.path('?page=2'), { json: { id: `${a.id}/outbox?page=2`, type: 'OrderedCollectionPage', orderedItems: [post(a.id, 2)] } });
    const account = await start(a);
    const { outcome, ledger } = await runHistory(s, account);
    assert.deepEqual(outcome, { kind: 'complete' });
    assert.equal(o.requests(a.path('?page=1')), 0);
    assert.equal(o.requests(a.path('?page=2')), 1);
    assert.equal(ledger.imported, 2);
    assert.deepEqual(await texts(account.id), ['post 2', 'post 1']);
  });

  it('P3, P4, P13: items on the collection itself, `items` instead of `orderedItems`, totalItems not believed', async () => {
    const a = actor();
    o.serve(a.outbox, { json: { id: `${a.id}/outbox`, type: 'Collection', totalItems: 5000, items: [post(a.id, 1), post(a.id, 2)] } });
    const account = await start(a);
    const { outcome, ledger } = await runHistory(s, account);
    assert.deepEqual(outcome, { kind: 'complete' });
    assert.equal(ledger.pages.length, 1);
    assert.deepEqual(await texts(account.id), ['post 2', 'post 1']);

    const b = actor();
    o.serve(b.outbox, { json: { id: `${b.id}/outbox`, type: 'OrderedCollection', first: `${b.id}/outbox?p` } });
    o.serve(b.path('?p'), { json: { id: `${b.id}/outbox?p`, type: 'CollectionPage', items: [post(b.id, 3)] } });
    const other = await start(b);
    assert.deepEqual((await runHistory(s, other)).outcome, { kind: 'complete' });
    assert.deepEqual(await texts(other.id), ['post 3']);
  });

  it('P5: a single object where the array belongs is one item; a collection there is none, without an error', async () => {
    const a = actor();
    o.serve(a.outbox, { json: { id: `${a.id}/outbox`, type: 'OrderedCollection', orderedItems: post(a.id, 1) } });
    const account = await start(a);
    assert.deepEqual((await runHistory(s, account)).outcome, { kind: 'complete' });
    assert.deepEqual(await texts(account.id), ['post 1']);

    const b = actor();
    o.serve(b.outbox, { json: { id: `${b.id}/outbox`, type: 'OrderedCollection', totalItems: 48, orderedItems: { type: 'OrderedCollection' } } });
    const other = await start(b);
    const { outcome, ledger } = await runHistory(s, other);
    assert.deepEqual(outcome, { kind: 'complete' });
    assert.equal(ledger.examined, 0);
  });

  it('P6, P7: `type` as an array or with an `as:` prefix; `first`/`next` as a Link or an object holding only an id', async () => {
    const a = actor();
    o.serve(a.outbox, { json: { id: `${a.id}/outbox`, type: ['as:OrderedCollection'], first: { type: 'Link', href: `${a.id}/outbox?page=1` } } });
    o.serve(a.path('?page=1'), {
      json: { id: `${a.id}/outbox?page=1`, type: ['OrderedCollectionPage'], orderedItems: [post(a.id, 1)], next: { id: `${a.id}/outbox?page=2` } },
    });
    o.serve(a.path('?page=2'), { json: { id: `${a.id}/outbox?page=2`, type: 'OrderedCollectionPage', orderedItems: [post(a.id, 2)] } });
    const account = await start(a);
    assert.deepEqual((await runHistory(s, account, { budget: 3 })).outcome, { kind: 'complete' });
    assert.deepEqual(await texts(account.id), ['post 2', 'post 1']);
  });

  it('P8, P10: a page without id whose next is the URL asked, and a page whose next is its own id, end as complete', async () => {
    const a = actor();
    o.serve(a.outbox, { json: { type: 'OrderedCollectionPage', orderedItems: [post(a.id, 1)], next: `${a.id}/outbox` } });
    const account = await start(a);
    const { outcome, ledger } = await runHistory(s, account, { budget: 5 });
    assert.deepEqual(outcome, { kind: 'complete' });
    assert.equal(ledger.cursor, null);
    assert.equal(o.requests(a.outbox), 1);

    const b = actor();
    o.serve(b.outbox, { json: { id: `${b.id}/outbox`, type: 'OrderedCollection', first: `${b.id}/outbox?page=1` } });
    o.serve(b.path('?page=1'), {
      json: { id: `${b.id}/outbox?page=1`, type: 'OrderedCollectionPage', orderedItems: [post(b.id, 1)], next: `${b.id}/outbox?page=1` },
    });
    const other = await start(b);
    assert.deepEqual((await runHistory(s, other, { budget: 5 })).outcome, { kind: 'complete' });
    assert.equal(o.requests(b.path('?page=1')), 1);
  });

  it('P10: page N+1 that is page 1 again, and an endless next, end at the first page that adds nothing new', async () => {
    const a = actor();
    // Every ?page=N answers the same items and names page N+1 (bookwyrm#1214, distributed.press#80).
    o.serve(a.outbox, (req) => {
      const page = Number(new URL(req.url!, o.url).searchParams.get('page') ?? 0);
      if (page === 0) return { json: { id: `${a.id}/outbox`, type: 'OrderedCollection', first: `${a.id}/outbox?page=1` } };
      return {
        json: {
          id: `${a.id}/outbox?page=${page}`,
          type: 'OrderedCollectionPage',
          orderedItems: [post(a.id, 1), post(a.id, 2)],
          next: `${a.id}/outbox?page=${page + 1}`,
        },
      };
    });
    const account = await start(a);
    const { outcome, ledger } = await runHistory(s, account, { budget: 10 });
    assert.deepEqual(outcome, { kind: 'complete' });
    assert.equal(o.requests(a.path('?page=2')), 1);
    assert.equal(o.requests(a.path('?page=3')), 0);
    assert.equal(ledger.imported, 2);
    assert.equal(ledger.cursor, null);

    // A later "Load older" from a page whose items are already history here ends too (no endless partials).
    const again = await runHistory(s, account, { cursor: `${o.url}/users/${a.name}/outbox?page=7`, budget: 1 });
    assert.deepEqual(again.outcome, { kind: 'complete' });
    assert.equal(again.ledger.imported, 0);
  });

  it('P9: an empty page that still names a next one ends the walk as complete, not as an error', async () => {
    const a = actor();
    o.serve(a.outbox, { json: { id: `${a.id}/outbox`, type: 'OrderedCollection', totalItems: 48, first: `${a.id}/outbox?page=1` } });
    o.serve(a.path('?page=1'), { json: { id: `${a.id}/outbox?page=1`, type: 'OrderedCollectionPage', orderedItems: [], next: `${a.id}/outbox?page=2` } });
    const account = await start(a);
    const { outcome, ledger } = await runHistory(s, account, { budget: 5 });
    assert.deepEqual(outcome, { kind: 'complete' });
    assert.equal(ledger.cursor, null);
    assert.equal(o.requests(a.path('?page=2')), 0);
  });

  it('P11, P12: drifting pages are deduplicated by id, and posts sort by their date whatever the page order', async () => {
    const a = actor();
    o.serve(a.outbox, {
      json: {
        id: `${a.id}/outbox`,
        type: 'OrderedCollectionPage',
        orderedItems: [post(a.id, 1, '2023-05-01T00:00:00Z'), post(a.id, 2, '2023-06-01T00:00:00Z')],
        next: `${a.id}/outbox?page=2`,
      },
    });
    o.serve(a.path('?page=2'), {
      json: {
        id: `${a.id}/outbox?page=2`,
        type: 'OrderedCollectionPage',
        orderedItems: [post(a.id, 2, '2023-06-01T00:00:00Z'), post(a.id, 3, '2023-04-01T00:00:00Z')],
      },
    });
    const account = await start(a);
    const { outcome, ledger } = await runHistory(s, account);
    assert.deepEqual(outcome, { kind: 'complete' });
    assert.deepEqual(
      ledger.pages.map((p) => [p.examined, p.imported]),
      [
        [2, 2],
        [2, 1],
      ],
    );
    const seen = await statusesOf(s, m.token['reader']!, account.id);
    assert.deepEqual(
      seen.map((st) => [plain(st.content), st.created_at]),
      [
        ['post 2', '2023-06-01T00:00:00.000Z'],
        ['post 1', '2023-05-01T00:00:00.000Z'],
        ['post 3', '2023-04-01T00:00:00.000Z'],
      ],
    );
  });

  it('P30: a document that is no collection (an actor, an HTML page, JSON sent as HTML) ends the job as not_a_collection', async () => {
    const a = actor();
    o.serve(a.outbox, { json: { id: `${a.id}/outbox`, type: 'Person', preferredUsername: 'x' } });
    const account = await start(a);
    assert.deepEqual((await runHistory(s, account)).outcome, { kind: 'unsupported', reason: 'not_a_collection' });

    const b = actor();
    o.serve(b.outbox, { body: '<!doctype html><title>Profile</title>', contentType: 'text/html; charset=utf-8' });
    const other = await start(b);
    assert.deepEqual((await runHistory(s, other)).outcome, { kind: 'unsupported', reason: 'not_a_collection' });

    // P30: the content type decides, even when the body would read as a collection.
    const c = actor();
    o.serve(c.outbox, { body: JSON.stringify({ type: 'OrderedCollection', orderedItems: [] }), contentType: 'text/html' });
    const third = await start(c);
    assert.deepEqual((await runHistory(s, third)).outcome, { kind: 'unsupported', reason: 'not_a_collection' });
  });

  it('the shared fixtures: `basic` fills in two jobs (initial, then one older page); `loop` ends as complete', async () => {
    const name = `basic${++n}`;
    o.load('basic', { name });
    const account = await remoteAccount(s, o.actor(name));
    const first = await runHistory(s, account);
    assert.deepEqual(first.outcome, { kind: 'partial' });
    assert.deepEqual(await texts(account.id), ['history five', 'history four', 'history three']);
    const older = await runHistory(s, account, { cursor: first.ledger.cursor!, budget: 1 });
    assert.deepEqual(older.outcome, { kind: 'complete' });
    const seen = await statusesOf(s, m.token['reader']!, account.id);
    assert.deepEqual(
      seen.map((st) => [plain(st.content), st.visibility, st.created_at.slice(0, 10), st.media_attachments.length, st.tags.length]),
      [
        ['history five', 'public', '2024-05-05', 0, 1],
        ['history four', 'unlisted', '2024-04-04', 0, 0],
        ['history three', 'public', '2024-03-03', 1, 0],
        ['history two', 'public', '2024-02-02', 0, 0],
        ['history one', 'public', '2024-01-01', 0, 0],
      ],
    );

    const looping = `loop${++n}`;
    o.load('loop', { name: looping });
    const other = await remoteAccount(s, o.actor(looping));
    const { outcome, ledger } = await runHistory(s, other, { budget: 10 });
    assert.deepEqual(outcome, { kind: 'complete' });
    assert.equal(ledger.imported, 2);
    assert.equal(o.requests(`/users/${looping}/outbox?page=1`), 1);
  });

  it('20 items examined per page at most', async () => {
    const a = actor();
    const items = Array.from({ length: 25 }, (_, i) => post(a.id, i + 1));
    o.serve(a.outbox, { json: { id: `${a.id}/outbox`, type: 'OrderedCollectionPage', orderedItems: items } });
    const account = await start(a);
    const { ledger } = await runHistory(s, account);
    assert.equal(ledger.examined, 20);
    assert.equal((await texts(account.id)).length, 20);
  });
});
