// Search's parameters and who sees what, between local members over real HTTP: following (followed accounts and
// oneself, exact handles included), account_id (one author's statuses, exact URLs included), offset and limit as
// Mastodon pages them (members only, one type at a time, 20 by default, at most 40), the three types, and the
// visibility rules: private posts for followers, direct ones for those mentioned, nothing from blocked, blocking or
// muted authors, hashtags only from public posts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Json } from '../support/api.js';
import { createMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';

describe('search parameters and visibility', () => {
  let s: TestServer;
  let host: string;
  const id: Record<string, string> = {};
  const token: Record<string, string> = {};

  const call = async (who: string | undefined, method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> => {
    const headers: Record<string, string> = who ? { Authorization: `Bearer ${token[who]}` } : {};
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const res = await fetch(s.url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  const search = async (who: string | undefined, params: Record<string, string>) => {
    const r = await call(who, 'GET', `/api/v2/search?${new URLSearchParams(params).toString()}`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body;
  };
  const post = async (who: string, status: string, visibility = 'public'): Promise<Json> => {
    const r = await call(who, 'POST', '/api/v1/statuses', { status, visibility });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body;
  };
  const ids = (list: Json[]) => list.map((x: Json) => x.id);
  const accts = (list: Json[]) => list.map((x: Json) => x.acct);

  before(async () => {
    s = await startTestServer();
    host = new URL(s.url).host;
    const members = await createMembers(s, ['kitty', 'kite', 'kitten', 'reader', 'writer', 'stranger', 'blocker', 'blocked', 'muted', 'axolotl']);
    Object.assign(id, members.id);
    Object.assign(token, members.token);
  });
  after(() => s.stop());

  it('following=true finds only accounts the member follows (and the member), exact handles too', async () => {
    assert.equal((await call('kitty', 'POST', `/api/v1/accounts/${id['kite']}/follow`)).body.following, true);
    assert.deepEqual(accts((await search('kitty', { q: 'kit', type: 'accounts' })).accounts), ['kite', 'kitten', 'kitty']);
    // As Mastodon's Account::Search: `following` means the accounts followed and oneself.
    assert.deepEqual(accts((await search('kitty', { q: 'kit', type: 'accounts', following: 'true' })).accounts), ['kite', 'kitty']);
    // An exact handle is no exception: one not followed is not found with following=true.
    assert.deepEqual(accts((await search('kitty', { q: `@kitten@${host}`, type: 'accounts' })).accounts), ['kitten']);
    assert.deepEqual(accts((await search('kitty', { q: `@kitten@${host}`, type: 'accounts', following: 'true' })).accounts), []);
    assert.deepEqual(accts((await search('kitty', { q: `kite@${host}`, following: 'true' })).accounts), ['kite']);
    // Anonymous: there is no one to follow anyone, so the flag changes nothing.
    assert.deepEqual(accts((await search(undefined, { q: 'kit', type: 'accounts', following: 'true' })).accounts), ['kite', 'kitten', 'kitty']);
  });

  it('account_id keeps only that author’s statuses, a status named by its URL too', async () => {
    const byWriter = await post('writer', 'quokka from the writer');
    const byReader = await post('reader', 'quokka from the reader');
    assert.deepEqual(ids((await search('kitty', { q: 'quokka' })).statuses), [byReader.id, byWriter.id]);
    assert.deepEqual(ids((await search('kitty', { q: 'quokka', account_id: id['writer']! })).statuses), [byWriter.id]);
    assert.deepEqual(ids((await search('kitty', { q: 'quokka', type: 'statuses', account_id: id['stranger']! })).statuses), []);
    // A local status by its URL: found, unless account_id names someone else.
    assert.deepEqual(ids((await search('kitty', { q: byReader.uri })).statuses), [byReader.id]);
    assert.deepEqual(ids((await search('kitty', { q: byReader.url })).statuses), [byReader.id]);
    assert.deepEqual(ids((await search('kitty', { q: byReader.uri, account_id: id['writer']! })).statuses), []);
    assert.deepEqual(ids((await search('kitty', { q: byReader.uri, account_id: id['reader']! })).statuses), [byReader.id]);
  });

  it('pages with offset and limit as Mastodon does: 20 by default, at most 40, offset for one type and for members', async () => {
    const posted: string[] = [];
    for (let i = 0; i < 42; i++) posted.push((await post('writer', `pangolin number ${i}`)).id);
    const newest = [...posted].reverse();
    const page = async (params: Record<string, string>) => ids((await search('reader', { q: 'pangolin', ...params })).statuses);
    assert.deepEqual(await page({}), newest.slice(0, 20));
    assert.deepEqual(await page({ limit: '100' }), newest.slice(0, 40));
    assert.deepEqual(await page({ type: 'statuses', limit: '5' }), newest.slice(0, 5));
    assert.deepEqual(await page({ type: 'statuses', limit: '5', offset: '5' }), newest.slice(5, 10));
    assert.deepEqual(await page({ type: 'statuses', limit: '5', offset: '40' }), newest.slice(40, 42));
    assert.deepEqual(await page({ type: 'statuses', offset: '42' }), []);
    // Without a type the offset is ignored (Mastodon's SearchService pages one type of result at a time).
    assert.deepEqual(await page({ limit: '5', offset: '5' }), newest.slice(0, 5));
    // limit=0 finds nothing at all.
    assert.deepEqual(await search('reader', { q: 'pangolin', limit: '0' }), { accounts: [], statuses: [], hashtags: [] });
    // Accounts and hashtags page the same way.
    assert.deepEqual(accts((await search('reader', { q: 'kit', type: 'accounts', limit: '2' })).accounts), ['kite', 'kitten']);
    assert.deepEqual(accts((await search('reader', { q: 'kit', type: 'accounts', limit: '2', offset: '2' })).accounts), ['kitty']);
    // Anonymous searches may not page, even from 0 (Mastodon: `params[:offset].present?`).
    for (const offset of ['0', '20']) {
      const r = await call(undefined, 'GET', `/api/v2/search?q=kit&type=accounts&offset=${offset}`);
      assert.equal(r.status, 401);
      assert.deepEqual(r.body, { error: 'Search queries pagination is not supported without authentication' });
    }
    assert.deepEqual(accts((await search(undefined, { q: 'kit', type: 'accounts', limit: '1' })).accounts), ['kite']);
  });

  it('finds private posts only for followers and the author, direct posts only for those mentioned', async () => {
    const priv = await post('writer', 'narwhal for followers', 'private');
    const direct = await post('writer', '@kitty narwhal between us', 'direct');
    assert.equal((await call('reader', 'POST', `/api/v1/accounts/${id['writer']}/follow`)).body.following, true);
    const found = async (who: string | undefined) => ids((await search(who, { q: 'narwhal', type: 'statuses' })).statuses);
    assert.deepEqual(await found('writer'), [direct.id, priv.id]);
    assert.deepEqual(await found('reader'), [priv.id], 'a follower, not mentioned');
    assert.deepEqual(await found('kitty'), [direct.id], 'mentioned, not a follower');
    assert.deepEqual(await found('stranger'), []);
    assert.deepEqual(await found(undefined), []);
    // Named by URL, the same rule applies.
    assert.deepEqual(ids((await search('stranger', { q: priv.uri })).statuses), []);
    assert.deepEqual(ids((await search('reader', { q: priv.uri })).statuses), [priv.id]);
  });

  it('leaves out statuses of authors the member blocks, mutes or is blocked by', async () => {
    const fromBlocker = await post('blocker', 'okapi seen by the blocker');
    const fromBlocked = await post('blocked', 'okapi seen by the blocked');
    const fromMuted = await post('muted', 'okapi seen by the muted');
    const fromWriter = await post('writer', 'okapi seen by the writer');
    const found = async (who: string) => ids((await search(who, { q: 'okapi' })).statuses);
    assert.deepEqual(await found('stranger'), [fromWriter.id, fromMuted.id, fromBlocked.id, fromBlocker.id]);
    assert.equal((await call('blocker', 'POST', `/api/v1/accounts/${id['stranger']}/block`)).body.blocking, true);
    assert.equal((await call('stranger', 'POST', `/api/v1/accounts/${id['blocked']}/block`)).body.blocking, true);
    assert.equal((await call('stranger', 'POST', `/api/v1/accounts/${id['muted']}/mute`)).body.muting, true);
    assert.deepEqual(await found('stranger'), [fromWriter.id]);
    assert.deepEqual(ids((await search('stranger', { q: 'okapi', account_id: id['blocker']! })).statuses), []);
    // The blocker's post named by its URL stays hidden from the one it blocked.
    assert.deepEqual(ids((await search('stranger', { q: fromBlocker.uri })).statuses), []);
    // Others still find them all.
    assert.deepEqual(await found('reader'), [fromWriter.id, fromMuted.id, fromBlocked.id, fromBlocker.id]);
  });

  it('type picks accounts, statuses or hashtags; hashtags come only from public posts', async () => {
    const pub = await post('writer', 'an axolotl post #axolotl');
    const all = await search('reader', { q: 'axolotl' });
    assert.deepEqual(accts(all.accounts), ['axolotl']);
    assert.deepEqual(ids(all.statuses), [pub.id]);
    // A Tag as everywhere else: its id, its week (today's one public use), and the member's follow and feature.
    const [tag] = all.hashtags;
    assert.deepEqual(
      { ...tag, id: typeof tag.id, history: tag.history.length },
      {
        id: 'string',
        name: 'axolotl',
        url: `${s.url}/tags/axolotl`,
        history: 7,
        following: false,
        featuring: false,
      },
    );
    assert.deepEqual([tag.history[0].uses, tag.history[0].accounts], ['1', '1']);
    assert.deepEqual(await search('reader', { q: 'axolotl', type: 'accounts' }).then((r) => [accts(r.accounts), r.statuses, r.hashtags]), [
      ['axolotl'],
      [],
      [],
    ]);
    assert.deepEqual(await search('reader', { q: 'axolotl', type: 'statuses' }).then((r) => [r.accounts, ids(r.statuses), r.hashtags]), [[], [pub.id], []]);
    assert.deepEqual(await search('reader', { q: 'axolotl', type: 'hashtags' }).then((r) => [r.accounts, r.statuses, r.hashtags.map((h: Json) => h.name)]), [
      [],
      [],
      ['axolotl'],
    ]);
    // A tag used only in private or direct posts is not listed to anyone, not even the author.
    await post('writer', 'hidden #secretcove', 'private');
    await post('writer', '@reader hidden #secretcove', 'direct');
    for (const who of ['writer', 'reader', undefined]) assert.deepEqual((await search(who, { q: '#secretcove' })).hashtags, [], String(who));
    await post('writer', 'now out in the open #secretcove');
    assert.deepEqual(
      (await search(undefined, { q: '#secretcove' })).hashtags.map((h: Json) => h.name),
      ['secretcove'],
    );
  });
});
