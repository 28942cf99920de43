// A member's private notes on accounts and their endorsements over real HTTP (issue 36), as Mastodon 4.5 answers:
// POST /api/v1/accounts/:id/note (an empty comment clears it; 2,000 characters at most), endorse / unendorse and the
// older pin / unpin (only followed accounts: 422), GET /api/v1/endorsements and a local account's public
// GET /api/v1/accounts/:id/endorsements paged with Link headers, and the Relationship's `note` and `endorsed` —
// through the api helper, masto.js 7 and Mastodon.py 1.8.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { createRestAPIClient } from 'masto';
import { api, form, type Json } from '../support/api.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';

const run = promisify(execFile);
const NOT_FOLLOWING = 'Validation failed: You must be already following the person you want to endorse';

describe('account notes and endorsements', () => {
  let s: TestServer;
  let m: LocalMembers;
  const call = (who: string | undefined, method: string, path: string, body?: unknown) =>
    api(s.url, who === undefined ? undefined : m.token[who], method, path, body);
  const ok = async (who: string, method: string, path: string, body?: unknown): Promise<Json> => {
    const r = await call(who, method, path, body);
    assert.equal(r.status, 200, `${method} ${path}: ${r.text}`);
    return r.body;
  };
  const relationship = async (who: string, other: string): Promise<Json> => (await ok(who, 'GET', `/api/v1/accounts/relationships?id[]=${m.id[other]}`))[0];
  const follow = (who: string, other: string) => ok(who, 'POST', `/api/v1/accounts/${m.id[other]}/follow`);

  before(async () => {
    s = await startTestServer();
    m = await createMembers(s, ['ann', 'bob', 'cat', 'dan', 'eve', 'fay', 'gus', 'hal']);
  });
  after(() => s?.stop());

  describe('notes', () => {
    it('sets, changes and clears a note, seen by its author alone in the Relationship', async () => {
      const set = await ok('ann', 'POST', `/api/v1/accounts/${m.id['bob']}/note`, { comment: 'Met at the fair 🎡' });
      assert.equal(set.id, m.id['bob']);
      assert.equal(set.note, 'Met at the fair 🎡');
      assert.equal(set.endorsed, false);
      assert.equal((await relationship('ann', 'bob')).note, 'Met at the fair 🎡');
      assert.equal((await relationship('cat', 'bob')).note, '', 'another member sees none');
      assert.equal((await relationship('bob', 'ann')).note, '', 'nor the account noted');
      // A form body, as Rails clients send it; then changed.
      assert.equal((await ok('ann', 'POST', `/api/v1/accounts/${m.id['bob']}/note`, form({ comment: 'owes me a book' }))).note, 'owes me a book');
      // Empty, blank or absent: cleared.
      for (const body of [{ comment: '' }, { comment: '   ' }, {}, { comment: null }]) {
        await ok('ann', 'POST', `/api/v1/accounts/${m.id['bob']}/note`, { comment: 'again' });
        assert.equal((await ok('ann', 'POST', `/api/v1/accounts/${m.id['bob']}/note`, body)).note, '', JSON.stringify(body));
      }
      const rows = await s.app.db.pool.query('SELECT count(*)::int AS n FROM account_notes WHERE account_id = $1', [m.id['ann']]);
      assert.equal(rows.rows[0].n, 0, 'an empty note is no row');
    });

    it('takes 2,000 characters (as Ruby counts them) and refuses more with 422; an unknown account is 404', async () => {
      const longest = '😀'.repeat(2000);
      assert.equal((await ok('ann', 'POST', `/api/v1/accounts/${m.id['cat']}/note`, { comment: longest })).note, longest);
      const over = await call('ann', 'POST', `/api/v1/accounts/${m.id['cat']}/note`, { comment: 'x'.repeat(2001) });
      assert.equal(over.status, 422);
      assert.deepEqual(over.body, { error: 'Validation failed: Comment is too long (maximum is 2000 characters)' });
      assert.equal((await relationship('ann', 'cat')).note, longest, 'unchanged');
      const wrongType = await call('ann', 'POST', `/api/v1/accounts/${m.id['cat']}/note`, { comment: ['a'] });
      assert.equal(wrongType.status, 422, wrongType.text);
      const missing = await call('ann', 'POST', '/api/v1/accounts/99999999/note', { comment: 'x' });
      assert.equal(missing.status, 404);
      assert.deepEqual(missing.body, { error: 'Record not found' });
      assert.equal((await call(undefined, 'POST', `/api/v1/accounts/${m.id['cat']}/note`, { comment: 'x' })).status, 401);
    });
    it('keeps any comment as sent, or refuses it with a 4xx: never a server error', async () => {
      await fc.assert(
        fc.asyncProperty(fc.string({ maxLength: 300, unit: 'binary' }), async (comment) => {
          const r = await call('eve', 'POST', `/api/v1/accounts/${m.id['hal']}/note`, { comment });
          assert.ok(r.status === 200 || r.status === 422, `${JSON.stringify(comment)}: ${r.status} ${r.text}`);
          if (r.status === 200) assert.equal(r.body.note, comment.trim() === '' ? '' : comment);
          else assert.equal(typeof r.body.error, 'string');
        }),
        { seed: 36, numRuns: 80 },
      );
      assert.equal((await call('eve', 'POST', `/api/v1/accounts/${m.id['hal']}/note`, { comment: 'a\u0000b' })).status, 422, 'a NUL cannot be stored');
      await ok('eve', 'POST', `/api/v1/accounts/${m.id['hal']}/note`, { comment: '' });
    });
  });

  describe('endorsements', () => {
    it('endorses only followed accounts (422 otherwise), idempotently; pin and unpin are the same', async () => {
      const refused = await call('dan', 'POST', `/api/v1/accounts/${m.id['eve']}/endorse`);
      assert.equal(refused.status, 422);
      assert.deepEqual(refused.body, { error: NOT_FOLLOWING });
      assert.deepEqual((await call('dan', 'POST', `/api/v1/accounts/${m.id['dan']}/pin`)).body, { error: NOT_FOLLOWING }, 'oneself');
      await follow('dan', 'eve');
      const endorsed = await ok('dan', 'POST', `/api/v1/accounts/${m.id['eve']}/endorse`);
      assert.equal(endorsed.id, m.id['eve']);
      assert.equal(endorsed.endorsed, true);
      assert.equal(endorsed.following, true);
      assert.equal((await ok('dan', 'POST', `/api/v1/accounts/${m.id['eve']}/pin`)).endorsed, true, 'again: still endorsed');
      assert.equal((await relationship('dan', 'eve')).endorsed, true);
      assert.equal((await relationship('eve', 'dan')).endorsed, false, 'one way');
      assert.equal((await ok('dan', 'POST', `/api/v1/accounts/${m.id['eve']}/unpin`)).endorsed, false);
      assert.equal((await ok('dan', 'POST', `/api/v1/accounts/${m.id['eve']}/unendorse`)).endorsed, false, 'again: no error');
      assert.equal((await call('dan', 'POST', '/api/v1/accounts/99999999/endorse')).status, 404);
    });

    it('lists them newest account first with Link headers, the member’s own and any local account’s in public', async () => {
      for (const other of ['bob', 'cat', 'eve']) await follow('fay', other);
      for (const other of ['bob', 'cat', 'eve']) await ok('fay', 'POST', `/api/v1/accounts/${m.id[other]}/endorse`);
      const byNewest = ['bob', 'cat', 'eve'].sort((a, b) => (BigInt(m.id[b]!) > BigInt(m.id[a]!) ? 1 : -1));
      const mine = await call('fay', 'GET', '/api/v1/endorsements');
      assert.equal(mine.status, 200);
      assert.deepEqual(
        mine.body.map((a: Json) => a.username),
        byNewest,
      );
      assert.equal(typeof mine.body[0].followers_count, 'number');
      // Paged one at a time by following rel="next".
      const seen: string[] = [];
      let next: string | undefined = `${s.url}/api/v1/endorsements?limit=1`;
      while (next) {
        const page = await api('', m.token['fay'], 'GET', next);
        assert.equal(page.status, 200);
        seen.push(...page.body.map((a: Json) => a.username));
        next = page.body.length ? /<([^>]+)>; rel="next"/.exec(page.link ?? '')?.[1] : undefined;
        assert.ok(seen.length <= 4, 'the pages end');
      }
      assert.deepEqual(seen, byNewest);
      // limit=0: all of them at once, without paging (Mastodon's `unlimited?`).
      const unlimited = await call('fay', 'GET', '/api/v1/endorsements?limit=0');
      assert.deepEqual(
        unlimited.body.map((a: Json) => a.username),
        byNewest,
      );
      assert.equal(unlimited.link, null);
      const first = await call('fay', 'GET', '/api/v1/endorsements?limit=1');
      assert.match(first.link!, new RegExp(`/api/v1/endorsements\\?limit=1&max_id=${m.id[byNewest[0]!]}>; rel="next"`));
      // Public: anyone may read a local account's list; a token sent must carry read:accounts.
      const open = await call(undefined, 'GET', `/api/v1/accounts/${m.id['fay']}/endorsements`);
      assert.equal(open.status, 200);
      assert.deepEqual(
        open.body.map((a: Json) => a.username),
        byNewest,
      );
      assert.match(open.link!, new RegExp(`/api/v1/accounts/${m.id['fay']}/endorsements\\?limit=40&max_id=`));
      const wrongScope = await api(s.url, await m.tokenFor('gus', ['read:follows']), 'GET', `/api/v1/accounts/${m.id['fay']}/endorsements`);
      assert.equal(wrongScope.status, 403);
      assert.deepEqual((await call('gus', 'GET', '/api/v1/endorsements')).body, []);
      assert.equal((await call(undefined, 'GET', '/api/v1/endorsements')).status, 401);
      assert.equal((await call(undefined, 'GET', '/api/v1/accounts/99999999/endorsements')).status, 404);
    });

    it('ends with the follow: unfollowing, being removed from followers, or a block takes the endorsement away', async () => {
      await follow('gus', 'bob');
      await follow('gus', 'cat');
      await follow('gus', 'hal');
      for (const other of ['bob', 'cat', 'hal']) await ok('gus', 'POST', `/api/v1/accounts/${m.id[other]}/endorse`);
      assert.equal((await ok('gus', 'POST', `/api/v1/accounts/${m.id['bob']}/unfollow`)).endorsed, false);
      await ok('cat', 'POST', `/api/v1/accounts/${m.id['gus']}/remove_from_followers`);
      assert.equal((await relationship('gus', 'cat')).endorsed, false);
      await ok('hal', 'POST', `/api/v1/accounts/${m.id['gus']}/block`);
      assert.equal((await relationship('gus', 'hal')).endorsed, false);
      assert.deepEqual((await ok('gus', 'GET', '/api/v1/endorsements')).length, 0);
      // Following again does not bring it back.
      await follow('gus', 'bob');
      assert.equal((await relationship('gus', 'bob')).endorsed, false);
    });

    it('leaves suspended accounts out of the lists, and shows none of a suspended account', async () => {
      await follow('hal', 'ann');
      await ok('hal', 'POST', `/api/v1/accounts/${m.id['ann']}/endorse`);
      await s.app.db.pool.query('UPDATE accounts SET suspended_at = now() WHERE id = $1', [m.id['ann']]);
      try {
        assert.deepEqual(await ok('hal', 'GET', '/api/v1/endorsements'), []);
        await s.app.db.pool.query('UPDATE accounts SET suspended_at = NULL WHERE id = $1', [m.id['ann']]);
        await s.app.db.pool.query('UPDATE accounts SET suspended_at = now() WHERE id = $1', [m.id['hal']]);
        assert.deepEqual((await call(undefined, 'GET', `/api/v1/accounts/${m.id['hal']}/endorsements`)).body, []);
        await s.app.db.pool.query('UPDATE accounts SET suspended_at = NULL WHERE id = $1', [m.id['hal']]);
      } finally {
        await s.app.db.pool.query('UPDATE accounts SET suspended_at = NULL WHERE id = $1', [m.id['ann']]);
      }
      assert.deepEqual(
        (await ok('hal', 'GET', '/api/v1/endorsements')).map((a: Json) => a.username),
        ['ann'],
      );
    });
  });

  it('serves masto.js 7: note.create, endorse, pin, unpin, endorsements.list, $select(id).endorsements.list', async () => {
    const client = createRestAPIClient({ url: s.url, accessToken: m.token['eve']! });
    const noted = await client.v1.accounts.$select(m.id['fay']!).note.create({ comment: 'from masto.js' });
    assert.equal(noted.note, 'from masto.js');
    await expectRejects(client.v1.accounts.$select(m.id['fay']!).endorse(), 422);
    await client.v1.accounts.$select(m.id['fay']!).follow();
    assert.equal((await client.v1.accounts.$select(m.id['fay']!).endorse()).endorsed, true);
    assert.equal((await client.v1.accounts.$select(m.id['fay']!).unpin()).endorsed, false);
    assert.equal((await client.v1.accounts.$select(m.id['fay']!).pin()).endorsed, true);
    assert.deepEqual(
      (await client.v1.endorsements.list()).map((a) => a.username),
      ['fay'],
    );
    assert.deepEqual(
      (await client.v1.accounts.$select(m.id['eve']!).endorsements.list()).map((a) => a.username),
      ['fay'],
    );
    const rel = (await client.v1.accounts.relationships.fetch({ id: [m.id['fay']!] }))[0]!;
    assert.equal(rel.note, 'from masto.js');
    assert.equal(rel.endorsed, true);
    assert.equal((await client.v1.accounts.$select(m.id['fay']!).unendorse()).endorsed, false);
  });

  it('serves Mastodon.py 1.8: account_note_set, account_pin, account_unpin, endorsements', async () => {
    await follow('cat', 'dan');
    const script = `
import json, os
from mastodon import Mastodon, MastodonAPIError
m = Mastodon(api_base_url=os.environ['BASE'], access_token=os.environ['TOKEN'], version_check_mode='none')
dan, eve = os.environ['DAN'], os.environ['EVE']
out = {}
out['note'] = m.account_note_set(dan, 'from Mastodon.py')['note']
out['pinned'] = m.account_pin(dan)['endorsed']
out['listed'] = [a['username'] for a in m.endorsements()]
try:
    m.account_pin(eve)
    out['refused'] = None
except MastodonAPIError as e:
    out['refused'] = [e.args[1], e.args[3]]
out['unpinned'] = m.account_unpin(dan)['endorsed']
out['cleared'] = m.account_note_set(dan, '')['note']
print(json.dumps(out))
`;
    const { stdout } = await run('/usr/bin/python3', ['-c', script], {
      env: { ...process.env, BASE: s.url, TOKEN: m.token['cat']!, DAN: m.id['dan']!, EVE: m.id['eve']! },
    });
    assert.deepEqual(JSON.parse(stdout), {
      note: 'from Mastodon.py',
      pinned: true,
      listed: ['dan'],
      refused: [422, NOT_FOLLOWING],
      unpinned: false,
      cleared: '',
    });
  });
});

async function expectRejects(p: Promise<unknown>, status: number): Promise<void> {
  try {
    await p;
  } catch (e) {
    assert.equal((e as { statusCode?: number }).statusCode, status, String(e));
    return;
  }
  assert.fail(`expected ${status}`);
}
