// GET /api/v1/statuses/:id/context for a viewer who blocks, mutes or blocks the domain of someone in the thread: as
// Mastodon's Status::ThreadingConcern runs StatusFilter over ancestors and descendants alike, the ancestors leave out
// what the viewer has silenced too, not only what they may not read: each silenced ancestor is left out alone, as
// Mastodon drops each filtered status (only one the viewer may not read ends the chain); the status asked for is
// shown whoever wrote it, as in Mastodon.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createRestAPIClient } from 'masto';
import { api, type Json } from '../support/api.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';

const FAR = 'far.example';

describe('context: the ancestors a viewer has silenced', () => {
  let s: TestServer;
  let m: LocalMembers;
  /** root (ann) ← r1 (rem@far.example) ← r2 (bob) ← leaf (cal). */
  const t: Record<'root' | 'r1' | 'r2' | 'leaf', string> = { root: '', r1: '', r2: '', leaf: '' };
  let remId = '';

  const ok = async (who: string | undefined, method: string, path: string, body?: unknown): Promise<Json> => {
    const r = await api(s.url, who && m.token[who], method, path, body);
    assert.equal(r.status, 200, `${method} ${path}: ${r.text}`);
    return r.body;
  };
  const post = async (who: string, status: string, inReplyTo?: string): Promise<string> =>
    (await ok(who, 'POST', '/api/v1/statuses', inReplyTo ? { status, in_reply_to_id: inReplyTo } : { status })).id;
  const ancestors = async (who: string | undefined, id = t.leaf): Promise<string[]> => {
    const ctx = await ok(who, 'GET', `/api/v1/statuses/${id}/context`);
    return (ctx.ancestors as Json[]).map((x) => x.id as string);
  };
  const name = (ids: string[]) => ids.map((id) => Object.entries(t).find(([, v]) => v === id)?.[0] ?? id);

  before(async () => {
    s = await startTestServer();
    m = await createMembers(s, ['ann', 'bob', 'cal', 'dan']);
    t.root = await post('ann', 'root');
    const rem = await s.app.db.pool.query<{ id: string }>(
      `INSERT INTO accounts (username, domain, uri, inbox_url, url, display_name) VALUES ('rem', $1, $2, $3, $2, 'Rem') RETURNING id::text AS id`,
      [FAR, `https://${FAR}/users/rem`, `https://${FAR}/users/rem/inbox`],
    );
    remId = rem.rows[0]!.id;
    const r1 = await s.app.db.pool.query<{ id: string }>(
      `INSERT INTO statuses (account_id, content, visibility, local, uri, url, in_reply_to_id, in_reply_to_account_id)
       VALUES ($1, '<p>from afar</p>', 0, false, $2, $2, $3, $4) RETURNING id::text AS id`,
      [remId, `https://${FAR}/notes/1`, t.root, m.id['ann']],
    );
    t.r1 = r1.rows[0]!.id;
    t.r2 = await post('bob', 'answering afar', t.r1);
    t.leaf = await post('cal', 'the leaf', t.r2);
  });
  after(async () => {
    await s?.stop();
  });

  it('shows every ancestor, oldest first, to a viewer who silenced no one, and to anyone', async () => {
    assert.deepEqual(name(await ancestors('dan')), ['root', 'r1', 'r2']);
    assert.deepEqual(name(await ancestors(undefined)), ['root', 'r1', 'r2']);
  });

  it('leaves out an ancestor on a domain the viewer blocks, and only it', async () => {
    assert.deepEqual(await ok('dan', 'POST', '/api/v1/domain_blocks', { domain: FAR }), {});
    assert.deepEqual(name(await ancestors('dan')), ['root', 'r2']);
    const masto = createRestAPIClient({ url: s.url, accessToken: m.token['dan'] });
    assert.deepEqual(name((await masto.v1.statuses.$select(t.leaf).context.fetch()).ancestors.map((x) => x.id)), ['root', 'r2']);
    // Only dan's view changes.
    assert.deepEqual(name(await ancestors('ann')), ['root', 'r1', 'r2']);
    assert.deepEqual(await ok('dan', 'DELETE', '/api/v1/domain_blocks', { domain: FAR }), {});
    assert.deepEqual(name(await ancestors('dan')), ['root', 'r1', 'r2']);
  });

  it('leaves out the ancestors of an account the viewer mutes, until the mute is lifted', async () => {
    await ok('dan', 'POST', `/api/v1/accounts/${m.id['ann']}/mute`);
    assert.deepEqual(name(await ancestors('dan')), ['r1', 'r2']);
    await ok('dan', 'POST', `/api/v1/accounts/${m.id['ann']}/unmute`);
    await ok('dan', 'POST', `/api/v1/accounts/${remId}/mute`);
    assert.deepEqual(name(await ancestors('dan')), ['root', 'r2']);
    await ok('dan', 'POST', `/api/v1/accounts/${remId}/unmute`);
    assert.deepEqual(name(await ancestors('dan')), ['root', 'r1', 'r2']);
  });

  it('leaves out the ancestors of an account the viewer blocks or that blocks the viewer', async () => {
    await ok('dan', 'POST', `/api/v1/accounts/${m.id['bob']}/block`);
    assert.deepEqual(name(await ancestors('dan')), ['root', 'r1']);
    await ok('dan', 'POST', `/api/v1/accounts/${m.id['bob']}/unblock`);
    await ok('ann', 'POST', `/api/v1/accounts/${m.id['dan']}/block`);
    assert.deepEqual(name(await ancestors('dan')), ['r1', 'r2']);
    await ok('ann', 'POST', `/api/v1/accounts/${m.id['dan']}/unblock`);
  });

  it('still shows the status asked for when the viewer mutes its author, with its ancestors', async () => {
    await ok('dan', 'POST', `/api/v1/accounts/${m.id['cal']}/mute`);
    const ctx = await ok('dan', 'GET', `/api/v1/statuses/${t.leaf}/context`);
    assert.deepEqual(name((ctx.ancestors as Json[]).map((x) => x.id)), ['root', 'r1', 'r2']);
    // …and the muted author's reply is out of the thread seen from above, as before.
    const fromR2 = await ok('dan', 'GET', `/api/v1/statuses/${t.r2}/context`);
    assert.deepEqual(fromR2.descendants, []);
    assert.deepEqual(name((fromR2.ancestors as Json[]).map((x) => x.id)), ['root', 'r1']);
    await ok('dan', 'POST', `/api/v1/accounts/${m.id['cal']}/unmute`);
  });
});
