// Mastodon 4.3 grouped notifications over real HTTP: favourites and boosts of one status by several accounts, and
// follows, come as one group each (count, newest first sample accounts, the status once); mentions stay alone;
// grouped_types[] / types[] / exclude_types[]; pages of groups with Link headers; partial_avatars; one group, its
// accounts, dismissing it (gone from v1 too); the 12-hour window of a group; unread counts behind the marker.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, type Json } from '../support/api.js';
import { createMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';

describe('grouped notifications API', () => {
  let s: TestServer;
  const id: Record<string, string> = {};
  const token: Record<string, string> = {};
  /** ana's posts P and Q, and the mentions bo sent her. */
  let P: Json;
  let Q: Json;
  let M1: Json;
  let M2: Json;
  /** ana's v1 notifications once everything happened, newest first. */
  let v1: Json[];

  const call = (who: string | undefined, method: string, path: string, body?: unknown) => api(s.url, who ? (token[who] ?? who) : undefined, method, path, body);
  const ok = async (who: string, method: string, path: string, body?: unknown): Promise<Json> => {
    const r = await call(who, method, path, body);
    assert.equal(r.status, 200, `${method} ${path}: ${JSON.stringify(r.body)}`);
    return r.body;
  };
  const groups = async (who: string, query = ''): Promise<Json> => {
    const r = await call(who, 'GET', `/api/v2/notifications${query}`);
    assert.equal(r.status, 200, r.text);
    // A JSON number, as Mastodon's serializer sends it (Ice Cubes decodes an Int); api() reads its digits exactly.
    if (r.body.notification_groups.length) assert.match(r.text, /"most_recent_notification_id":\d+[,}]/);
    assert.doesNotMatch(r.text, /"most_recent_notification_id":"/);
    return r.body;
  };
  /** "type:count" per group, as a reader would summarise the list. */
  const summary = (body: Json) => body.notification_groups.map((g: Json) => `${g.type}:${g.notifications_count}`);
  const v1Id = (type: string, who: string, statusId?: string) =>
    v1.find((n) => n.type === type && n.account.id === id[who] && (!statusId || n.status?.id === statusId))!.id;
  const nextOf = (link: string | null) => /<([^>]+)>; rel="next"/.exec(link ?? '')?.[1]?.slice(s.url.length);

  before(async () => {
    s = await startTestServer();
    const members = await createMembers(s, ['ana', 'bo', 'cy', 'di', 'ed', 'fay']);
    Object.assign(id, members.id);
    Object.assign(token, members.token);
    token['ana-statuses-only'] = await members.tokenFor('ana', ['read:statuses']);
    P = await ok('ana', 'POST', '/api/v1/statuses', { status: 'post P' });
    Q = await ok('ana', 'POST', '/api/v1/statuses', { status: 'post Q' });
    for (const who of ['bo', 'cy', 'di']) await ok(who, 'POST', `/api/v1/accounts/${id['ana']}/follow`);
    for (const who of ['bo', 'cy', 'di']) await ok(who, 'POST', `/api/v1/statuses/${P.id}/favourite`);
    for (const who of ['bo', 'cy']) await ok(who, 'POST', `/api/v1/statuses/${P.id}/reblog`);
    await ok('ed', 'POST', `/api/v1/statuses/${Q.id}/favourite`);
    M1 = await ok('bo', 'POST', '/api/v1/statuses', { status: '@ana first' });
    M2 = await ok('bo', 'POST', '/api/v1/statuses', { status: '@ana second' });
    v1 = await ok('ana', 'GET', '/api/v1/notifications');
    assert.equal(v1.length, 11);
  });
  after(() => s.stop());

  it('groups favourites and boosts of one status and follows, newest group first, and leaves mentions alone', async () => {
    const body = await groups('ana');
    assert.deepEqual(summary(body), ['mention:1', 'mention:1', 'favourite:1', 'reblog:2', 'favourite:3', 'follow:3']);
    const [m2, m1, favQ, reblogP, favP, follow] = body.notification_groups;
    assert.deepEqual(m2, {
      group_key: `ungrouped-${v1Id('mention', 'bo', M2.id)}`,
      notifications_count: 1,
      type: 'mention',
      most_recent_notification_id: v1Id('mention', 'bo', M2.id),
      page_min_id: v1Id('mention', 'bo', M2.id),
      page_max_id: v1Id('mention', 'bo', M2.id),
      latest_page_notification_at: v1.find((n) => n.status?.id === M2.id).created_at,
      sample_account_ids: [id['bo']],
      status_id: M2.id,
    });
    assert.equal(m1.status_id, M1.id);
    assert.match(favP.group_key, new RegExp(`^favourite-${P.id}-\\d+$`));
    assert.match(reblogP.group_key, new RegExp(`^reblog-${P.id}-\\d+$`));
    assert.match(favQ.group_key, new RegExp(`^favourite-${Q.id}-\\d+$`));
    assert.match(follow.group_key, /^follow-\d+$/);
    // The newest account first; the group spans from bo's favourite to di's.
    assert.deepEqual(favP.sample_account_ids, [id['di'], id['cy'], id['bo']]);
    assert.equal(favP.most_recent_notification_id, v1Id('favourite', 'di'));
    assert.equal(favP.page_max_id, v1Id('favourite', 'di'));
    assert.equal(favP.page_min_id, v1Id('favourite', 'bo', P.id));
    assert.equal(favP.status_id, P.id);
    assert.deepEqual(reblogP.sample_account_ids, [id['cy'], id['bo']]);
    assert.deepEqual(follow.sample_account_ids, [id['di'], id['cy'], id['bo']]);
    assert.equal('status_id' in follow, false, 'a follow names no status');
    // Every account and status named once, as full entities.
    assert.deepEqual(body.accounts.map((a: Json) => a.username).sort(), ['bo', 'cy', 'di', 'ed']);
    assert.ok(body.accounts.every((a: Json) => typeof a.display_name === 'string' && typeof a.followers_count === 'number'));
    assert.deepEqual(body.statuses.map((x: Json) => x.id).sort(), [P.id, Q.id, M1.id, M2.id].sort());
    assert.equal(body.statuses.find((x: Json) => x.id === P.id).content, '<p>post P</p>');
    assert.equal('partial_accounts' in body, false);
  });

  it('gives v1 notifications the same group keys', async () => {
    const body = await groups('ana');
    const keyOf = (type: string) => body.notification_groups.find((g: Json) => g.type === type && g.status_id !== Q.id).group_key;
    for (const n of v1) {
      if (n.type === 'mention') assert.equal(n.group_key, `ungrouped-${n.id}`);
      else if (n.status?.id === Q.id) assert.equal(n.group_key, body.notification_groups[2].group_key);
      else assert.equal(n.group_key, keyOf(n.type), `${n.type} from ${n.account.username}`);
    }
  });

  it('groups only the grouped_types[] asked for, and filters by types[] and exclude_types[]', async () => {
    const onlyFavourites = await groups('ana', '?grouped_types[]=favourite');
    assert.deepEqual(summary(onlyFavourites), [
      'mention:1',
      'mention:1',
      'favourite:1',
      'reblog:1',
      'reblog:1',
      'favourite:3',
      'follow:1',
      'follow:1',
      'follow:1',
    ]);
    assert.ok(onlyFavourites.notification_groups.filter((g: Json) => g.type !== 'favourite').every((g: Json) => g.group_key.startsWith('ungrouped-')));
    // A type that is never grouped groups nothing.
    assert.equal((await groups('ana', '?grouped_types[]=mention')).notification_groups.length, 11);
    assert.deepEqual(summary(await groups('ana', '?types[]=favourite')), ['favourite:1', 'favourite:3']);
    assert.deepEqual(summary(await groups('ana', '?exclude_types[]=mention&exclude_types[]=follow')), ['favourite:1', 'reblog:2', 'favourite:3']);
    assert.deepEqual(summary(await groups('ana', `?account_id=${id['ed']}`)), ['favourite:1']);
    assert.deepEqual(summary(await groups('ana', '?account_id=nobody')), []);
  });

  it('pages groups with Link headers: a group comes back on the next page with its older notifications, as in Mastodon', async () => {
    const pages: string[][] = [];
    let path: string | undefined = '/api/v2/notifications?limit=2&exclude_types[]=mention';
    let last: { status: number; body: Json; link: string | null } | undefined;
    while (path) {
      last = await call('ana', 'GET', path);
      assert.equal(last.status, 200);
      if (last.body.notification_groups.length === 0) break;
      pages.push(summary(last.body));
      const lowest = last.body.notification_groups.at(-1).page_max_id;
      const next = nextOf(last.link) ?? '';
      assert.ok(next.startsWith('/api/v2/notifications?'), last.link ?? 'no Link');
      assert.ok(next.includes('exclude_types[]=mention') && next.includes('limit=2'), next);
      assert.equal(new URL(s.url + next).searchParams.get('max_id'), lowest, 'next starts below the lowest notification of the page');
      path = next;
    }
    assert.deepEqual(pages, [['favourite:1', 'reblog:2'], ['reblog:1', 'favourite:3'], ['favourite:2', 'follow:3'], ['follow:2'], ['follow:1']]);
    assert.deepEqual(last!.body, { accounts: [], statuses: [], notification_groups: [] });
    assert.equal(last!.link, null, 'no Link on an empty page');

    // prev: the groups just above the page.
    const second = await call('ana', 'GET', '/api/v2/notifications?limit=2&max_id=' + v1Id('mention', 'bo', M1.id));
    assert.deepEqual(summary(second.body), ['favourite:1', 'reblog:2']);
    const prev = /<([^>]+)>; rel="prev"/.exec(second.link ?? '')![1]!;
    assert.equal(new URL(prev).searchParams.get('min_id'), v1Id('favourite', 'ed'));
    const above = await ok('ana', 'GET', prev.slice(s.url.length));
    assert.deepEqual(
      above.notification_groups.map((g: Json) => g.status_id),
      [M2.id, M1.id],
    );
  });

  it('lists only the first account of each group in full with expand_accounts=partial_avatars', async () => {
    const body = await groups('ana', '?types[]=favourite&types[]=reblog&expand_accounts=partial_avatars');
    assert.deepEqual(
      body.accounts.map((a: Json) => a.username),
      ['ed', 'cy', 'di'],
    );
    assert.deepEqual(
      body.partial_accounts.map((a: Json) => a.username ?? a.acct),
      ['bo'],
    );
    assert.deepEqual(Object.keys(body.partial_accounts[0]).sort(), ['acct', 'avatar', 'avatar_description', 'avatar_static', 'bot', 'id', 'locked', 'url']);
    assert.equal(body.partial_accounts[0].id, id['bo']);
    assert.deepEqual(body.notification_groups.at(-1).sample_account_ids, [id['di'], id['cy'], id['bo']]);
    const bad = await call('ana', 'GET', '/api/v2/notifications?expand_accounts=everything');
    assert.equal(bad.status, 400);
    assert.match(bad.body.error, /expand_accounts/);
  });

  it('shows one group with its accounts, and dismisses a whole group (from v1 too)', async () => {
    const favP = (await groups('ana')).notification_groups.find((g: Json) => g.type === 'favourite' && g.status_id === P.id);
    const one = await ok('ana', 'GET', `/api/v2/notifications/${favP.group_key}`);
    assert.deepEqual(one.notification_groups, [
      {
        group_key: favP.group_key,
        notifications_count: 3,
        type: 'favourite',
        most_recent_notification_id: favP.most_recent_notification_id,
        sample_account_ids: [id['di'], id['cy'], id['bo']],
        status_id: P.id,
      },
    ]);
    assert.deepEqual(
      one.statuses.map((x: Json) => x.id),
      [P.id],
    );
    assert.deepEqual(
      one.accounts.map((a: Json) => a.username),
      ['di', 'cy', 'bo'],
    );
    const mention = await ok('ana', 'GET', `/api/v2/notifications/ungrouped-${v1Id('mention', 'bo', M1.id)}`);
    assert.deepEqual(summary(mention), ['mention:1']);
    for (const key of ['favourite-1-1', 'ungrouped-x', '%00', 'a'.repeat(300)])
      assert.equal((await call('ana', 'GET', `/api/v2/notifications/${key}`)).status, 404, key);
    assert.equal((await call('ana', 'GET', '/api/v2/notifications?limit=-1')).status, 400);
    assert.equal((await call('bo', 'GET', `/api/v2/notifications/${favP.group_key}`)).status, 404, "another member's group");

    const accounts = await call('ana', 'GET', `/api/v2/notifications/${favP.group_key}/accounts?limit=2`);
    assert.deepEqual(
      accounts.body.map((a: Json) => a.username),
      ['di', 'cy'],
    );
    const rest = await ok('ana', 'GET', nextOf(accounts.link)!);
    assert.deepEqual(
      rest.map((a: Json) => a.username),
      ['bo'],
    );

    assert.deepEqual(await ok('bo', 'POST', `/api/v2/notifications/${favP.group_key}/dismiss`), {});
    assert.equal((await groups('ana')).notification_groups.length, 6, "another member's dismiss changes nothing");
    assert.deepEqual(await ok('ana', 'POST', `/api/v2/notifications/${favP.group_key}/dismiss`), {});
    assert.deepEqual(summary(await groups('ana')), ['mention:1', 'mention:1', 'favourite:1', 'reblog:2', 'follow:3']);
    const left = await ok('ana', 'GET', '/api/v1/notifications');
    assert.equal(left.length, 8);
    assert.ok(!left.some((n: Json) => n.type === 'favourite' && n.status.id === P.id));
    assert.equal((await call('ana', 'GET', `/api/v2/notifications/${favP.group_key}`)).status, 404);
    // An ungrouped key dismisses its one notification.
    await ok('ana', 'POST', `/api/v2/notifications/ungrouped-${v1Id('mention', 'bo', M1.id)}/dismiss`);
    assert.deepEqual(summary(await groups('ana')), ['mention:1', 'favourite:1', 'reblog:2', 'follow:3']);
  });

  it('keeps a group open for 12 hours from its first hour, then starts a new one', async () => {
    const R = await ok('fay', 'POST', '/api/v1/statuses', { status: 'post R' });
    await ok('bo', 'POST', `/api/v1/statuses/${R.id}/favourite`);
    const [first] = await ok('fay', 'GET', '/api/v1/notifications');
    const hour = Number(first.group_key.split('-').at(-1));
    assert.equal(first.group_key, `favourite-${R.id}-${hour}`);
    // As if bo's favourite had come 10 hours ago: cy's joins its group.
    await s.app.db.pool.query('UPDATE notifications SET group_key = $1 WHERE id = $2', [`favourite-${R.id}-${hour - 10}`, first.id]);
    await ok('cy', 'POST', `/api/v1/statuses/${R.id}/favourite`);
    assert.deepEqual(
      (await ok('fay', 'GET', '/api/v1/notifications')).map((n: Json) => n.group_key),
      [`favourite-${R.id}-${hour - 10}`, `favourite-${R.id}-${hour - 10}`],
    );
    assert.deepEqual(summary(await groups('fay')), ['favourite:2']);
    // 13 hours ago: too old to join; di's starts a group of its own.
    await s.app.db.pool.query('UPDATE notifications SET group_key = $1 WHERE account_id = $2', [`favourite-${R.id}-${hour - 13}`, id['fay']]);
    await ok('di', 'POST', `/api/v1/statuses/${R.id}/favourite`);
    const [newest] = await ok('fay', 'GET', '/api/v1/notifications');
    assert.match(newest.group_key, new RegExp(`^favourite-${R.id}-(${hour}|${hour + 1})$`));
    assert.deepEqual(summary(await groups('fay')), ['favourite:1', 'favourite:2']);
    await ok('fay', 'POST', '/api/v2/notifications/clear');
    assert.deepEqual(await groups('fay'), { accounts: [], statuses: [], notification_groups: [] });
  });

  it('counts unread notifications (v1) and groups (v2) after the notifications marker', async () => {
    const S = await ok('fay', 'POST', '/api/v1/statuses', { status: 'post S' });
    for (const who of ['bo', 'cy']) await ok(who, 'POST', `/api/v1/statuses/${S.id}/favourite`);
    await ok('bo', 'POST', `/api/v1/accounts/${id['fay']}/follow`);
    await ok('cy', 'POST', '/api/v1/statuses', { status: '@fay hello' });
    const count = async (v: 1 | 2, query = '') => (await ok('fay', 'GET', `/api/v${v}/notifications/unread_count${query}`)).count;
    assert.equal(await count(1), 4);
    assert.equal(await count(2), 3);
    const list = await ok('fay', 'GET', '/api/v1/notifications');
    const cyFavourite = list.find((n: Json) => n.type === 'favourite' && n.account.id === id['cy']);
    await ok('fay', 'POST', '/api/v1/markers', { notifications: { last_read_id: cyFavourite.id } });
    assert.equal(await count(1), 2);
    assert.equal(await count(2), 2);
    assert.equal(await count(1, '?limit=1'), 1);
    assert.equal(await count(1, '?types[]=mention'), 1);
    // A new favourite after the marker makes the favourites' group unread again.
    await ok('di', 'POST', `/api/v1/statuses/${S.id}/favourite`);
    assert.equal(await count(1), 3);
    assert.equal(await count(2), 3);
  });

  it('needs read:notifications to read and write:notifications to dismiss', async () => {
    assert.equal((await call(undefined, 'GET', '/api/v2/notifications')).status, 401);
    assert.equal((await call('ana-statuses-only', 'GET', '/api/v2/notifications')).status, 403);
    assert.equal((await call('ana-statuses-only', 'GET', '/api/v2/notifications/unread_count')).status, 403);
    assert.equal((await call('ana-statuses-only', 'POST', '/api/v2/notifications/ungrouped-1/dismiss')).status, 403);
  });
});
