// Remote history end to end (issue 16), one server with its real scheduler and runner, a fake origin on loopback
// serving the `basic` outbox: the operator switches the feature on, a member opens a remote profile and sees its
// older posts arrive page by page (Load older for the rest), never in any feed or search; reads that must not ask
// for history ask for nothing; a rate-limited origin is left alone until its reset and the job then runs by itself.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, FED_ENV, type Json } from '../support/api.js';
import { startHistoryOrigin, type HistoryOrigin } from '../support/history-origin.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

const PUBLIC = 'https://www.w3.org/ns/activitystreams#Public';

describe('remote history end to end', () => {
  let s: TestServer;
  let origin: HistoryOrigin;
  let m: LocalMembers;
  let operator: string;

  const call = (token: string | undefined, method: string, path: string, body?: unknown) => api(s.url, token, method, path, body);
  const history = async (accountId: string): Promise<Json> => {
    const r = await call(m.token['ann'], 'GET', `/api/v1/accounts/${accountId}/remote_history`);
    assert.equal(r.status, 200, r.text);
    return r.body;
  };
  const statuses = async (accountId: string): Promise<Json[]> => {
    const r = await call(m.token['ann'], 'GET', `/api/v1/accounts/${accountId}/statuses?limit=40`);
    assert.equal(r.status, 200, r.text);
    return r.body as Json[];
  };
  /** What a member does to open a remote profile: search for its URL, resolved through federation. */
  const open = async (actorUri: string): Promise<string> => {
    const r = await call(m.token['ann'], 'GET', `/api/v2/search?type=accounts&resolve=true&q=${encodeURIComponent(actorUri)}`);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.accounts.length, 1, r.text);
    return r.body.accounts[0].id as string;
  };
  const texts = (list: Json[]) => list.map((x) => (x.content as string).replace(/<[^>]+>/g, ''));

  before(async () => {
    [s, origin] = await Promise.all([startTestServer(FED_ENV), startHistoryOrigin()]);
    m = await createMembers(s, ['ann', 'boss'], { boss: 'admin' });
    operator = await m.tokenFor('boss', ['admin:read', 'admin:write']);
  });
  after(async () => {
    await s?.stop();
    await origin?.close();
  });

  it('the operator switches the feature on', async () => {
    const r = await call(operator, 'PUT', '/api/v1/admin/remote_history', { enabled: true });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.enabled, true);
  });

  it('opening a remote profile fills it with its older posts, page by page, and Load older brings the rest', async () => {
    const actor = origin.actor('olga');
    origin.load('basic', { name: 'olga' });
    const id = await open(actor);
    assert.equal((await history(id)).state, 'idle', 'resolving the actor asks for nothing');
    assert.equal(origin.requests('/users/olga/outbox'), 0);

    // The profile's first page, read by a member, asks for the initial fetch: the outbox and its first page.
    assert.deepEqual(await statuses(id), []);
    await eventually(async () => assert.equal((await history(id)).state, 'partial'));
    const partial = await history(id);
    assert.equal(partial.items_examined, 3);
    assert.equal(partial.items_imported, 3);
    assert.equal(partial.pages_fetched, 2);
    assert.equal(partial.attempts, 0);
    assert.equal(partial.reason, null);
    assert.equal(partial.can_load_older, true);
    assert.ok(partial.last_fetched_at, 'last_fetched_at is set');
    assert.equal(origin.requests('/users/olga/outbox?page=2'), 0, 'the initial fetch reads two documents only');
    assert.ok(origin.signed('/users/olga/outbox?page=1'), 'pages are fetched signed');

    const first = await statuses(id);
    assert.deepEqual(texts(first), ['history five', 'history four', 'history three'], 'newest first');
    assert.deepEqual(
      first.map((x) => x.created_at),
      ['2024-05-05T10:00:00.000Z', '2024-04-04T10:00:00.000Z', '2024-03-03T10:00:00.000Z'],
      'with their original dates',
    );
    assert.deepEqual(
      first.map((x) => x.visibility),
      ['public', 'unlisted', 'public'],
    );
    assert.deepEqual(
      first.map((x) => x.uri),
      [5, 4, 3].map((n) => `${origin.url}/users/olga/statuses/${n}`),
    );
    assert.deepEqual(
      first.map((x) => x.media_attachments.length),
      [0, 0, 1],
    );
    const picture = first[2].media_attachments[0];
    assert.equal(picture.type, 'image');
    assert.equal(picture.remote_url, `${origin.url}/media/3.png`);
    assert.equal(picture.description, 'a picture');
    assert.deepEqual(
      first[0].tags.map((t: Json) => t.name),
      ['history'],
    );
    for (const x of first) assert.equal(x.account.id, id);

    // Load older: one more page, the last.
    const more = await call(m.token['ann'], 'POST', `/api/v1/accounts/${id}/remote_history/fetch`);
    assert.equal(more.status, 202, more.text);
    assert.equal(more.body.state, 'queued');
    await eventually(async () => assert.equal((await history(id)).state, 'complete'));
    const complete = await history(id);
    assert.equal(complete.items_imported, 5);
    assert.equal(complete.items_examined, 5);
    assert.equal(complete.pages_fetched, 3);
    assert.equal(complete.can_load_older, false);
    const all = await statuses(id);
    assert.deepEqual(texts(all), ['history five', 'history four', 'history three', 'history two', 'history one']);
    assert.deepEqual(
      all.map((x) => x.created_at),
      ['2024-05-05', '2024-04-04', '2024-03-03', '2024-02-02', '2024-01-01'].map((d) => `${d}T10:00:00.000Z`),
    );
  });

  it('a member who follows the actor sees none of its history in home, public or tag timelines, or in search', async () => {
    const actorUri = `${origin.url}/users/olga`;
    const id = await open(actorUri);
    const f = await call(m.token['ann'], 'POST', `/api/v1/accounts/${id}/follow`);
    assert.equal(f.status, 200, f.text);
    // The fake origin has no inbox to answer with an Accept: its acceptance is recorded as the Accept handler does.
    await s.app.federation.follows.remove('follow_requests', m.id['ann']!, id);
    await s.app.federation.follows.follow(m.id['ann']!, id, null);
    const rel = await call(m.token['ann'], 'GET', `/api/v1/accounts/relationships?id[]=${id}`);
    assert.equal(rel.body[0].following, true, rel.text);
    const held = new Set((await statuses(id)).map((x) => x.id as string));
    assert.equal(held.size, 5);

    for (const path of [
      '/api/v1/timelines/home?limit=40',
      '/api/v1/timelines/public?limit=40',
      '/api/v1/timelines/public?remote=true&limit=40',
      '/api/v1/timelines/tag/history?limit=40',
      '/api/v2/search?type=statuses&q=history&limit=40',
      `/api/v2/search?type=statuses&q=history&account_id=${id}&limit=40`,
    ]) {
      const r = await call(m.token['ann'], 'GET', path);
      assert.equal(r.status, 200, `${path}: ${r.text}`);
      const list: Json[] = Array.isArray(r.body) ? r.body : r.body.statuses;
      assert.deepEqual(
        list.filter((x) => held.has(x.id)),
        [],
        `${path} lists history posts`,
      );
    }
    // Each is still readable by id.
    for (const sid of held) assert.equal((await call(m.token['ann'], 'GET', `/api/v1/statuses/${sid}`)).status, 200);
  });

  it('anonymous and paginated reads of a fresh profile ask for nothing', async () => {
    const actor = origin.actor('pete');
    origin.load('basic', { name: 'pete' });
    const id = await open(actor);
    for (const [token, query] of [
      [undefined, ''],
      [undefined, '?limit=5'],
      [m.token['ann'], '?max_id=999999999999999'],
      [m.token['ann'], '?min_id=1'],
      [m.token['ann'], '?since_id=1'],
      [m.token['ann'], '?pinned=true'],
    ] as const) {
      const r = await call(token, 'GET', `/api/v1/accounts/${id}/statuses${query}`);
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.body, []);
    }
    // The scheduler's every wake-up has passed: nothing was queued to be found.
    await s.app.history.scheduler()!.roundAfterKick();
    assert.equal((await history(id)).state, 'idle');
    // (Reading the profile may count its followers on the origin; its outbox is never asked for.)
    assert.equal(origin.requests('/users/pete/outbox'), 0, 'the outbox was fetched');
    assert.equal(origin.requests('/users/pete/outbox?page=1'), 0, 'a page was fetched');
  });

  it('a 429 with X-RateLimit-Reset backs off until the reset, and the job then runs by itself', async () => {
    // An origin of its own: its backoff holds every job of the origin.
    const busy = await startHistoryOrigin();
    try {
      const actor = busy.actor('rita');
      const outbox = `${busy.url}/users/rita/outbox`;
      // Two minutes ahead (the 1-minute floor on any backoff leaves it as it is), with microseconds as Mastodon sends it.
      const reset = new Date(Date.now() + 120_000);
      const limited = { status: 429, json: { error: 'Too many requests' }, headers: { 'x-ratelimit-reset': reset.toISOString().replace('Z', '123Z') } };
      const page = {
        json: {
          '@context': 'https://www.w3.org/ns/activitystreams',
          id: outbox,
          type: 'OrderedCollection',
          totalItems: 1,
          orderedItems: [
            {
              id: `${actor}/statuses/1/activity`,
              type: 'Create',
              actor,
              to: [PUBLIC],
              object: {
                id: `${actor}/statuses/1`,
                type: 'Note',
                attributedTo: actor,
                to: [PUBLIC],
                content: '<p>patience</p>',
                published: '2024-06-01T00:00:00Z',
              },
            },
          ],
        },
      };
      const answered: number[] = [];
      busy.serve('/users/rita/outbox', () => {
        if (busy.requests('/users/rita/outbox') === 1) return limited;
        answered.push(Date.now());
        return page;
      });
      const id = await open(actor);
      assert.deepEqual(await statuses(id), []);
      await eventually(async () => assert.equal((await history(id)).state, 'backoff'));
      const backoff = await history(id);
      assert.equal(backoff.reason, 'rate_limited');
      assert.equal(backoff.attempts, 1);
      assert.equal(backoff.retry_at, reset.toISOString(), 'retry_at is the reset the origin named');
      assert.equal(backoff.can_load_older, false);
      const asked = await call(m.token['ann'], 'POST', `/api/v1/accounts/${id}/remote_history/fetch`);
      assert.deepEqual([asked.status, asked.body.state], [200, 'backoff'], 'asking again during the backoff changes nothing');
      assert.equal(busy.requests('/users/rita/outbox'), 1);

      // Two minutes are too long for a test: the reset is brought to 2 s from now, as if the time had passed, and the
      // nodes are woken once (as any ask on the origin would). Nothing runs then: the job waits for its time.
      const soon = new Date(Date.now() + 2_000);
      await s.app.db.exec('UPDATE remote_histories SET retry_at = $2 WHERE account_id = $1', [id, soon]);
      await s.app.db.exec('UPDATE history_origins SET backoff_until = $2 WHERE origin = $1', [busy.host, soon]);
      await s.app.db.exec(`SELECT pg_notify('stoa_work', 'history:' || $1::text)`, [busy.host]);
      await s.app.history.scheduler()!.roundAfterKick();
      assert.equal(busy.requests('/users/rita/outbox'), 1, 'the job ran before its retry time');
      await eventually(async () => assert.equal((await history(id)).state, 'complete'), 8_000);
      assert.ok(answered[0]! >= soon.getTime() - 5, 'not before its retry time');
      const done = await history(id);
      assert.equal(done.attempts, 0, 'a success resets the attempts');
      assert.equal(done.retry_at, null);
      assert.equal(done.items_imported, 1);
      assert.deepEqual(texts(await statuses(id)), ['patience']);
    } finally {
      await busy.close();
    }
  });
});
