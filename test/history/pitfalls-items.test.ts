// The item pitfalls the first tests left open (reference/history.md P24, P25, P36, P38; PITFALLS.md): a mention of an
// actor nobody here knows stays a link and nobody is fetched; dates missing or wildly old sort last without breaking
// ids; a deleted actor is never fetched from, whatever path asks; a post listed twice (pinned first, then in its
// place) is one status and `featured` is never fetched. Read as a member reads them, through the API.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RemoteHistoryStore } from '../../src/store/remote-history.js';
import { FED_ENV, api, type Json } from '../support/api.js';
import { plain, remoteAccount, runHistory, statusesOf } from '../support/history-harness.js';
import { startHistoryOrigin, type HistoryOrigin } from '../support/history-origin.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

const PUBLIC = 'https://www.w3.org/ns/activitystreams#Public';

describe('remote history: mentions, dates, deleted actors and pinned posts (P24, P25, P36, P38)', () => {
  let s: TestServer;
  let o: HistoryOrigin;
  let elsewhere: HistoryOrigin;
  let m: LocalMembers;
  let n = 0;

  before(async () => {
    s = await startTestServer(FED_ENV);
    o = await startHistoryOrigin();
    elsewhere = await startHistoryOrigin();
    m = await createMembers(s, ['reader']);
  });
  after(async () => {
    await o.close();
    await elsewhere.close();
    await s.stop();
  });

  const note = (actorId: string, i: number, extra: Record<string, unknown> = {}) => ({
    id: `${actorId}/statuses/${i}`,
    type: 'Note',
    attributedTo: actorId,
    to: [PUBLIC],
    content: `<p>post ${i}</p>`,
    published: '2024-01-05T12:00:00Z',
    ...extra,
  });
  const create = (actorId: string, object: { id: string }) => ({ id: `${object.id}/activity`, type: 'Create', actor: actorId, to: [PUBLIC], object });

  /** A fresh actor (with `opts`) whose outbox is one page of `items(actorId)`. */
  async function withOutbox(items: (id: string) => unknown[], opts: { featured?: boolean } = {}) {
    const name = `it${++n}`;
    const id = o.actor(name, opts.featured ? { featured: `${o.url}/users/${name}/collections/featured` } : {});
    const path = `/users/${name}/outbox`;
    o.serve(path, { json: { id: `${id}/outbox`, type: 'OrderedCollectionPage', orderedItems: items(id) } });
    return { name, id, path, account: await remoteAccount(s, id) };
  }
  const seen = (accountId: string): Promise<Json[]> => statusesOf(s, m.token['reader']!, accountId);

  it('P24: mentions of actors unknown here stay links: no actor is fetched, on the origin or elsewhere, none is stored', async () => {
    const stranger = `${o.url}/users/stranger`;
    const far = `${elsewhere.url}/users/far`;
    const a = await withOutbox((id) => [
      create(
        id,
        note(id, 1, {
          content: `<p>hello <a href="${stranger}" class="u-url mention">@stranger</a> and <a href="${far}">@far</a></p>`,
          tag: [
            { type: 'Mention', href: stranger, name: `@stranger@${o.host}` },
            { type: 'Mention', href: far, name: `@far@${elsewhere.host}` },
          ],
        }),
      ),
    ]);
    const { ledger } = await runHistory(s, a.account);
    assert.equal(ledger.imported, 1);
    const [st] = await seen(a.account.id);
    assert.deepEqual(st.mentions, []);
    assert.ok(st.content.includes(`href="${stranger}"`), st.content);
    assert.ok(st.content.includes(`href="${far}"`), st.content);
    assert.equal(o.requests('/users/stranger'), 0);
    assert.equal(elsewhere.requests(), 0);
    assert.equal(await s.app.federation.accounts.byUri(stranger), undefined);
    assert.equal(await s.app.federation.accounts.byUri(far), undefined);
  });

  it('P25: a missing date is now; wildly old dates sort last, with ids a client can use', async () => {
    const t = Date.now();
    const a = await withOutbox((id) => [
      create(id, note(id, 1, { published: '-271821-04-20T00:00:00.000Z' })),
      create(id, note(id, 2, { published: '0001-01-01T00:00:00Z' })),
      create(id, note(id, 3, { published: undefined })),
      create(id, note(id, 4, { published: '2024-03-01T00:00:00Z' })),
      create(id, note(id, 5, { published: '1969-07-20T20:17:40Z' })),
    ]);
    const { outcome, ledger } = await runHistory(s, a.account);
    assert.deepEqual(outcome, { kind: 'complete' });
    assert.equal(ledger.imported, 5);
    const list = await seen(a.account.id);
    assert.deepEqual(
      list.slice(0, 2).map((st) => plain(st.content)),
      ['post 3', 'post 4'],
    );
    assert.deepEqual(
      list
        .slice(2)
        .map((st) => plain(st.content))
        .sort(),
      ['post 1', 'post 2', 'post 5'],
    );
    const now = Date.parse(list[0].created_at);
    assert.ok(now >= t - 1000 && now <= Date.now() + 1000);
    for (const st of list.slice(2)) assert.equal(st.created_at, '1970-01-01T00:00:00.000Z');
    for (const st of list) {
      assert.match(st.id, /^\d+$/);
      const byId = await api(s.url, m.token['reader'], 'GET', `/api/v1/statuses/${st.id}`);
      assert.equal(byId.status, 200, byId.text);
    }
    // Paging past the dated posts reaches the old ones.
    const older = await api(s.url, m.token['reader'], 'GET', `/api/v1/accounts/${a.account.id}/statuses?max_id=${list[1].id}`);
    assert.equal(older.status, 200, older.text);
    assert.equal(older.body.length, 3);
  });

  it('P36: a deleted actor is never fetched from: its record cannot be asked for, and a job queued before runs no request', async () => {
    const a = await withOutbox((id) => [create(id, note(id, 1))]);
    // Queued while the feature is off (no job runs), then the actor is deleted, then the feature comes on.
    const asked = await new RemoteHistoryStore(s.app.db).request(a.account, 'older');
    assert.equal(asked.kind, 'queued');
    await s.app.federation.accounts.markDeleted(a.account.id);
    await s.app.history.settings.update({ enabled: true });
    try {
      await eventually(async () => {
        const r = await s.app.db.one<{ state: string; reason: string | null }>('SELECT state, reason FROM remote_histories WHERE account_id = $1', [
          a.account.id,
        ]);
        assert.deepEqual(r, { state: 'unsupported', reason: 'federation_policy' });
      });
      assert.equal(o.requests(a.path), 0);
      // A member can neither read nor ask for it any more, and a profile view queues nothing.
      const r = await api(s.url, m.token['reader'], 'POST', `/api/v1/accounts/${a.account.id}/remote_history/fetch`);
      assert.equal(r.status, 404, r.text);
      const view = await api(s.url, m.token['reader'], 'GET', `/api/v1/accounts/${a.account.id}/statuses`);
      assert.equal(view.status, 404, view.text);
      assert.equal(o.requests(a.path), 0);
      assert.equal((await s.app.db.one<{ n: number }>('SELECT count(*)::int AS n FROM statuses WHERE account_id = $1', [a.account.id]))!.n, 0);
    } finally {
      await s.app.history.settings.update({ enabled: false });
    }
  });

  it('P38: a post in `featured` and in the outbox (pinned first, then in its place) is one status; featured is not fetched', async () => {
    const a = await withOutbox(
      (id) => [
        create(id, note(id, 9, { published: '2024-01-09T00:00:00Z' })), // pinned, listed first (Misskey, some others)
        create(id, note(id, 11, { published: '2024-01-11T00:00:00Z' })),
        create(id, note(id, 10, { published: '2024-01-10T00:00:00Z' })),
        create(id, note(id, 9, { published: '2024-01-09T00:00:00Z' })), // in its place
        note(id, 9, { published: '2024-01-09T00:00:00Z' }), // and once more, bare
      ],
      { featured: true },
    );
    o.serve(`/users/${a.name}/collections/featured`, {
      json: { id: `${a.id}/collections/featured`, type: 'OrderedCollection', orderedItems: [note(a.id, 9)] },
    });
    const { outcome, ledger } = await runHistory(s, a.account);
    assert.deepEqual(outcome, { kind: 'complete' });
    assert.deepEqual([ledger.examined, ledger.imported], [5, 3]);
    assert.deepEqual(
      (await seen(a.account.id)).map((st) => plain(st.content)),
      ['post 11', 'post 10', 'post 9'],
    );
    assert.equal(o.requests(`/users/${a.name}/collections/featured`), 0);
    // Read again (a later job over the same page): still one of each.
    await runHistory(s, a.account);
    assert.equal((await seen(a.account.id)).length, 3);
  });
});
