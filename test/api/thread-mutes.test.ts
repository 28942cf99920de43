// Muting a conversation (POST /api/v1/statuses/:id/mute and /unmute, scope write:mutes): any status of a thread the
// member can see mutes the whole thread; from then on no notification about any status in it reaches the member
// (mentions, favourites, boosts, a poll's end), statuses of it show `muted: true`, and what was notified before stays.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, type Json } from '../support/api.js';
import { createMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

describe('muted conversations', () => {
  let s: TestServer;
  let token: Record<string, string>;
  let tokenFor: (name: string, scopes: readonly string[]) => Promise<string>;
  const post = async (who: string, body: Record<string, unknown>): Promise<Json> => {
    const r = await api(s.url, token[who], 'POST', '/api/v1/statuses', body);
    assert.equal(r.status, 200, r.text);
    return r.body;
  };
  const notified = async (who: string): Promise<string[]> =>
    (await api(s.url, token[who], 'GET', '/api/v1/notifications')).body.map((n: Json) => `${n.type} ${n.account.username} ${n.status?.id ?? ''}`);

  before(async () => {
    s = await startTestServer();
    ({ token, tokenFor } = await createMembers(s, ['ann', 'ben', 'cal']));
  });
  after(() => s?.stop());

  it('silences every notification about the thread, shows it muted, and unmuting lets new ones through', async () => {
    const root = await post('ann', { status: 'a thread' });
    const reply = await post('ben', { status: '@ann first reply', in_reply_to_id: root.id });
    assert.deepEqual(await notified('ann'), [`mention ben ${reply.id}`]);

    // Muted through a reply: the whole thread, the root included, for ann only.
    const muted = await api(s.url, token['ann'], 'POST', `/api/v1/statuses/${reply.id}/mute`);
    assert.equal(muted.status, 200, muted.text);
    assert.equal(muted.body.muted, true);
    assert.equal((await api(s.url, token['ann'], 'GET', `/api/v1/statuses/${root.id}`)).body.muted, true);
    assert.equal((await api(s.url, token['ben'], 'GET', `/api/v1/statuses/${root.id}`)).body.muted, false, 'not muted for others');
    const other = await post('ann', { status: 'another thread' });
    assert.equal((await api(s.url, token['ann'], 'GET', `/api/v1/statuses/${other.id}`)).body.muted, false);

    const deeper = await post('cal', { status: '@ann @ben deeper', in_reply_to_id: reply.id });
    await api(s.url, token['cal'], 'POST', `/api/v1/statuses/${root.id}/favourite`);
    await api(s.url, token['cal'], 'POST', `/api/v1/statuses/${root.id}/reblog`);
    await api(s.url, token['cal'], 'POST', `/api/v1/statuses/${other.id}/favourite`);
    assert.deepEqual(
      await notified('ann'),
      [`favourite cal ${other.id}`, `mention ben ${reply.id}`],
      'the earlier mention stays; only the other thread is heard of',
    );
    assert.ok(
      (await notified('ben')).some((n) => n.startsWith('mention cal')),
      'ben did not mute it',
    );
    const context = (await api(s.url, token['ann'], 'GET', `/api/v1/statuses/${root.id}/context`)).body;
    assert.deepEqual(
      context.descendants.map((x: Json) => [x.id, x.muted]),
      [
        [reply.id, true],
        [deeper.id, true],
      ],
      'a reply after the mute is in it too',
    );

    // Unmuted through the root: new events are heard again, the silenced ones stay unheard.
    const unmuted = await api(s.url, token['ann'], 'POST', `/api/v1/statuses/${root.id}/unmute`);
    assert.equal(unmuted.body.muted, false);
    const later = await post('cal', { status: '@ann after', in_reply_to_id: deeper.id });
    assert.deepEqual(await notified('ann'), [`mention cal ${later.id}`, `favourite cal ${other.id}`, `mention ben ${reply.id}`]);
  });

  it('ends a poll in a muted thread without telling the muted voter', async () => {
    const poll = await post('ann', { status: 'quick vote', poll: { options: ['a', 'b'], expires_in: 300 } });
    assert.equal((await api(s.url, token['ben'], 'POST', `/api/v1/polls/${poll.poll.id}/votes`, { choices: [0] })).status, 200);
    assert.equal((await api(s.url, token['cal'], 'POST', `/api/v1/polls/${poll.poll.id}/votes`, { choices: [1] })).status, 200);
    await api(s.url, token['ben'], 'POST', `/api/v1/statuses/${poll.id}/mute`);
    await s.app.db.pool.query("UPDATE polls SET expires_at = now() - interval '1 second' WHERE status_id = $1", [poll.id]);
    s.app.pollCloser()!.kick();
    await eventually(async () =>
      assert.ok(
        (await notified('cal')).some((n) => n.startsWith('poll ann')),
        'cal hears of the end',
      ),
    );
    assert.ok(!(await notified('ben')).some((n) => n.startsWith('poll')), 'ben muted the thread');
  });

  it('needs write:mutes and a status the member can see, and changes nothing otherwise', async () => {
    const root = await post('ann', { status: 'for followers', visibility: 'private' });
    const statusesOnly = await tokenFor('ben', ['write:statuses']);
    const seeable = await post('ann', { status: 'public' });
    assert.equal((await api(s.url, statusesOnly, 'POST', `/api/v1/statuses/${seeable.id}/mute`)).status, 403);
    assert.equal((await api(s.url, token['ben'], 'POST', `/api/v1/statuses/${root.id}/mute`)).status, 404, 'not a follower');
    assert.equal((await api(s.url, token['ben'], 'POST', '/api/v1/statuses/999999999/mute')).status, 404);
    assert.equal((await api(s.url, undefined, 'POST', `/api/v1/statuses/${seeable.id}/mute`)).status, 401);
    const { rows } = await s.app.db.pool.query('SELECT count(*)::int AS n FROM thread_mutes tm JOIN accounts a ON a.id = tm.account_id WHERE a.username = $1', [
      'ben',
    ]);
    assert.equal(rows[0].n, 1, 'only the poll thread of the test before');
  });
});
