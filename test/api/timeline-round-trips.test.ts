// Every timeline page costs at most 3 round trips to PostgreSQL (issue 19), whatever it shows: boosts, quotes,
// replies, mentions, polls, reactions, favourites, bookmarks, pins, a muted thread. Each route's handler is wrapped
// so the statements it sends are counted in its own async context (Database.tally), then the pages are fetched over
// real HTTP and checked to show what was posted.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Principal, Route } from '../../src/http/types.js';
import type { Request } from '../../src/http/request.js';
import { api, type Json } from '../support/api.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';

const MAX_ROUND_TRIPS = 3;

describe('timeline pages: round trips to PostgreSQL', () => {
  let s: TestServer;
  let m: LocalMembers;
  /** The statements the last request's handler sent, by path. */
  const sent = new Map<string, string[]>();
  let listId: string;
  let rootId: string;

  const call = async (who: string | undefined, method: string, path: string, body?: unknown) => {
    const r = await api(s.url, who ? m.token[who] : undefined, method, path, body);
    assert.equal(r.status, 200, `${method} ${path}: ${JSON.stringify(r.body)}`);
    return r.body as Json;
  };
  const post = async (who: string, fields: Record<string, unknown>): Promise<string> => (await call(who, 'POST', '/api/v1/statuses', fields)).id;

  before(async () => {
    s = await startTestServer();
    m = await createMembers(s, ['ann', 'bob', 'cid']);
    for (const r of s.app.routes as Route[]) {
      const h = r.handler as (req: Request, who: Principal | null) => unknown;
      (r as { handler: unknown }).handler = async (req: Request, who: Principal | null) => {
        const { value, statements } = await s.app.db.tally(async () => h(req, who));
        sent.set(req.path, statements);
        return value;
      };
    }
    await call('ann', 'POST', `/api/v1/accounts/${m.id['bob']}/follow`);
    await call('ann', 'POST', `/api/v1/accounts/${m.id['cid']}/follow`);
    rootId = await post('bob', { status: 'A thread about #rounds with @ann', visibility: 'public' });
    const reply = await post('cid', { status: '@bob a reply', in_reply_to_id: rootId, visibility: 'public' });
    await post('bob', { status: '@cid a reply to the reply', in_reply_to_id: reply, visibility: 'public' });
    await post('cid', { status: 'A poll #rounds', poll: { options: ['yes', 'no'], expires_in: 3600 }, visibility: 'public' });
    const quoted = await post('cid', { status: 'quote me', visibility: 'public' });
    await post('bob', { status: 'Quoting #rounds', quoted_status_id: quoted, visibility: 'public' });
    await post('ann', { status: '@bob direct words', visibility: 'direct' });
    await call('cid', 'POST', `/api/v1/statuses/${rootId}/reblog`);
    for (const action of ['favourite', 'bookmark', 'mute']) await call('ann', 'POST', `/api/v1/statuses/${rootId}/${action}`);
    await call('bob', 'POST', `/api/v1/statuses/${rootId}/pin`);
    await call('cid', 'PUT', `/api/v1/pleroma/statuses/${rootId}/reactions/👍`);
    for (const who of ['bob', 'cid']) await call(who, 'POST', `/api/v1/statuses/${rootId}/favourite`);
    listId = (await call('ann', 'POST', '/api/v1/lists', { title: 'friends' })).id;
    await call('ann', 'POST', `/api/v1/lists/${listId}/accounts`, { account_ids: [m.id['bob'], m.id['cid']] });
  });
  after(() => s?.stop());

  const pages = (): [string, string, (body: Json) => number][] => [
    ['home', '/api/v1/timelines/home', (b) => b.length],
    ['public', '/api/v1/timelines/public', (b) => b.length],
    ['local', '/api/v1/timelines/public?local=true', (b) => b.length],
    ['tag', '/api/v1/timelines/tag/rounds', (b) => b.length],
    ['list', `/api/v1/timelines/list/${listId}`, (b) => b.length],
    ['account', `/api/v1/accounts/${m.id['bob']}/statuses`, (b) => b.length],
    ['notifications', '/api/v1/notifications', (b) => b.length],
    ['grouped notifications', '/api/v2/notifications', (b) => b.notification_groups.length],
    ['context', `/api/v1/statuses/${rootId}/context`, (b) => b.descendants.length],
  ];

  it(`costs at most ${MAX_ROUND_TRIPS} statements for every timeline page`, async () => {
    for (const [name, path, items] of pages()) {
      const body = await call('ann', 'GET', path);
      assert.ok(items(body) > 0, `${name}: an empty page proves nothing`);
      const statements = sent.get(path.split('?')[0]!) ?? [];
      assert.ok(
        statements.length <= MAX_ROUND_TRIPS,
        `${name}: ${statements.length} statements:\n${statements.map((t) => t.replace(/\s+/g, ' ').slice(0, 120)).join('\n')}`,
      );
    }
  });

  it('reads a page of notifications in two statements at most: the page, then its render bundle; one when held', async () => {
    // Groups of more than one (two favourites of one post, two follows) besides ann's ungrouped mention.
    const mine = await post('ann', { status: 'favourite this', visibility: 'public' });
    for (const who of ['bob', 'cid']) {
      await call(who, 'POST', `/api/v1/statuses/${mine}/favourite`);
      await call(who, 'POST', `/api/v1/accounts/${m.id['ann']}/follow`);
    }
    const shown = (path: string) => {
      const statements = sent.get(path) ?? [];
      return `${path}:\n${statements.map((t) => t.replace(/\s+/g, ' ').slice(0, 120)).join('\n')}`;
    };
    for (const path of ['/api/v1/notifications', '/api/v2/notifications']) {
      const body = await call('ann', 'GET', path);
      if (!Array.isArray(body))
        assert.ok(
          body.notification_groups.some((g: Json) => g.notifications_count === 2),
          JSON.stringify(body.notification_groups),
        );
      assert.ok((sent.get(path) ?? []).length <= 2, shown(path));
    }
    // Read again, every status and sender is held: the page's own statement read all the rest (ref-pages.ts).
    for (const path of ['/api/v1/notifications', '/api/v2/notifications']) {
      await call('ann', 'GET', path);
      assert.equal((sent.get(path) ?? []).length, 1, shown(path));
    }
  });

  it('reads a timeline page whose statuses are held in its own statement, the account held too', async () => {
    // cid's statuses: a reply, a poll, a post someone quotes, a boost; no quote of its own (a quote reads the bundle).
    const path = `/api/v1/accounts/${m.id['cid']}/statuses`;
    const first = (await call('ann', 'GET', path)) as Json[];
    assert.ok(first.some((x) => x.poll) && first.some((x) => x.reblog), JSON.stringify(first.map((x) => x.id)));
    const again = (await call('ann', 'GET', path)) as Json[];
    assert.deepEqual(again, first);
    const statements = sent.get(path) ?? [];
    assert.equal(statements.length, 1, statements.map((t) => t.replace(/\s+/g, ' ').slice(0, 120)).join('\n'));
    // A list of cid alone: its own row is read in the page's statement.
    const only = (await call('ann', 'POST', '/api/v1/lists', { title: 'cid' })).id;
    await call('ann', 'POST', `/api/v1/lists/${only}/accounts`, { account_ids: [m.id['cid']] });
    const listPath = `/api/v1/timelines/list/${only}`;
    const listed = (await call('ann', 'GET', listPath)) as Json[];
    assert.ok(listed.length > 0 && listed.every((x) => x.account.id === m.id['cid']));
    assert.deepEqual(await call('ann', 'GET', listPath), listed);
    assert.equal((sent.get(listPath) ?? []).length, 1, (sent.get(listPath) ?? []).join('\n'));
  });

  it('reads a held thread in one statement: the status, its context and their counts and flags', async () => {
    const path = `/api/v1/statuses/${rootId}/context`;
    const first = await call('ann', 'GET', path);
    assert.ok(first.descendants.length >= 2, JSON.stringify(first));
    const again = await call('ann', 'GET', path);
    assert.deepEqual(again, first);
    const statements = sent.get(path) ?? [];
    assert.equal(statements.length, 1, statements.map((t) => t.replace(/\s+/g, ' ').slice(0, 120)).join('\n'));
    // Asked through the boost of the root, the context is the root's; a status nobody may read is not found.
    const boost = ((await call('ann', 'GET', '/api/v1/timelines/home')) as Json[]).find((x) => x.reblog?.id === rootId);
    assert.ok(boost);
    assert.deepEqual(await call('ann', 'GET', `/api/v1/statuses/${boost.id}/context`), first);
    const res = await fetch(`${s.url}/api/v1/statuses/1/context`);
    assert.equal(res.status, 404);
  });

  it('shows what the page loaded in its one render statement', async () => {
    const home = (await call('ann', 'GET', '/api/v1/timelines/home')) as Json[];
    const boost = home.find((x) => x.reblog?.id === rootId);
    assert.ok(boost, 'the boost of the root is in ann’s home');
    const root = boost.reblog;
    assert.equal(root.account.id, m.id['bob']);
    assert.equal(root.account.followers_count, 1);
    assert.equal(root.favourites_count, 3);
    assert.equal(root.reblogs_count, 1);
    assert.equal(root.replies_count, 1);
    assert.deepEqual([root.favourited, root.bookmarked, root.muted, root.reblogged], [true, true, true, false]);
    assert.deepEqual(
      root.mentions.map((x: Json) => x.id),
      [m.id['ann']],
    );
    assert.deepEqual(root.pleroma?.emoji_reactions?.map((r: Json) => [r.name, r.count]) ?? root.reactions?.map((r: Json) => [r.name, r.count]), [['👍', 1]]);
    const quote = home.find((x) => x.quote);
    assert.equal(quote?.quote.state, 'accepted');
    assert.equal(quote?.quote.quoted_status.content, '<p>quote me</p>');
    assert.deepEqual(
      home.find((x) => x.poll)?.poll.options.map((o: Json) => o.title),
      ['yes', 'no'],
    );
    const bobs = (await call('bob', 'GET', `/api/v1/accounts/${m.id['bob']}/statuses`)) as Json[];
    assert.equal(bobs.find((x) => x.id === rootId)?.pinned, true);
  });
});
