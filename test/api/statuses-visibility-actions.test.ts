// The visibility matrix (test/support/visibility-matrix.ts) for actions: a member who may not see one of amy's
// statuses gets 404 for every action on it (favourite, boost, bookmark, pin, react, vote, report, and their undoing),
// also through a boost of it, and nothing changes: not what amy sees of it, not what the member has stored.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KINDS, MAY_SEE, startMatrix, type Json, type Kind, type Matrix } from '../support/visibility-matrix.js';

const ACTORS = ['bob', 'cal', 'dee', 'fay'] as const;
const THUMBS = encodeURIComponent('👍');
/** Every action on a status by id, as [method, path suffix]. */
const ACTIONS: readonly (readonly [string, string])[] = [
  ...['favourite', 'unfavourite', 'reblog', 'unreblog', 'bookmark', 'unbookmark', 'pin', 'unpin'].map((a) => ['POST', a] as const),
  ['PUT', `../pleroma/statuses/:id/reactions/${THUMBS}`],
  ['DELETE', `../pleroma/statuses/:id/reactions/${THUMBS}`],
];
const pathOf = (id: string, suffix: string) =>
  suffix.startsWith('../') ? `/api/v1/${suffix.slice(3).replace(':id', id)}` : `/api/v1/statuses/${id}/${suffix}`;

describe('statuses API: acting on a status one may not see', () => {
  let m: Matrix;
  /** gil's boost of amy's public status (fay may not see through it). */
  let boost: string;

  before(async () => {
    m = await startMatrix();
    boost = (await m.call('gil', 'POST', `/api/v1/statuses/${m.post.public}/reblog`)).body.id;
  });
  after(() => m?.stop());

  /** Everything a member's actions store, counted. */
  const footprint = async (who: string) =>
    m.server.app.db.one<Record<string, number>>(
      `SELECT (SELECT count(*)::int FROM favourites WHERE account_id = $1) AS favourites,
       (SELECT count(*)::int FROM bookmarks WHERE account_id = $1) AS bookmarks,
       (SELECT count(*)::int FROM pins WHERE account_id = $1) AS pins,
       (SELECT count(*)::int FROM status_reactions WHERE account_id = $1) AS reactions,
       (SELECT count(*)::int FROM poll_votes WHERE account_id = $1) AS votes,
       (SELECT count(*)::int FROM reports WHERE account_id = $1) AS reports,
       (SELECT count(*)::int FROM statuses WHERE account_id = $1 AND reblog_of_id IS NOT NULL) AS boosts,
       (SELECT count(*)::int FROM notifications WHERE account_id = $2) AS amy_notifications`,
      [m.id[who], m.id['amy']],
    );
  /** What amy sees of her statuses and polls. */
  const amySees = async () => {
    const out: Record<string, unknown> = {};
    for (const k of KINDS) {
      const s = (await m.call('amy', 'GET', `/api/v1/statuses/${m.post[k]}`)).body;
      out[k] = [s.favourites_count, s.reblogs_count, s.pleroma.emoji_reactions, s.pinned];
      out[`poll ${k}`] = (await m.call('amy', 'GET', `/api/v1/polls/${m.poll[k]}`)).body.votes_count;
    }
    return out;
  };

  it('answers 404 to every action on an invisible status, through a boost too, and changes nothing', async () => {
    const seen = await amySees();
    for (const v of ACTORS) {
      const before = await footprint(v);
      const hidden: Kind[] = KINDS.filter((k) => !MAY_SEE[v].includes(k));
      const targets = hidden.map((k) => [k, m.post[k]] as const);
      if (v === 'fay') targets.push(['public', boost]); // gil's boost stands for amy's post, which fay may not see
      for (const [k, id] of targets) {
        for (const [method, suffix] of ACTIONS) {
          const r = await m.call(v, method, pathOf(id, suffix));
          assert.deepEqual([r.status, r.body], [404, { error: 'Record not found' }], `${v} ${method} ${suffix} on ${k} (${id})`);
        }
      }
      for (const k of hidden) {
        const vote = await m.call(v, 'POST', `/api/v1/polls/${m.poll[k]}/votes`, { choices: [0] });
        assert.deepEqual([vote.status, vote.body], [404, { error: 'Record not found' }], `${v} votes in ${k}`);
        const report = await m.call(v, 'POST', '/api/v1/reports', { account_id: m.id['amy'], status_ids: [m.post[k]], comment: 'seen somehow' });
        assert.deepEqual([report.status, report.body], [404, { error: 'Record not found' }], `${v} reports ${k}`);
        // One invisible status among visible ones refuses the whole report.
        const mixed = await m.call(v, 'POST', '/api/v1/reports', { account_id: m.id['amy'], status_ids: [...MAY_SEE[v].map((x) => m.post[x]), m.post[k]] });
        assert.equal(mixed.status, 404, `${v} reports ${k} among others`);
      }
      assert.deepEqual(await footprint(v), before, `${v}: nothing stored`);
    }
    assert.deepEqual(await amySees(), seen, 'amy sees her statuses unchanged');
  });

  it('lets the same members act on what they may see (so the refusals above are about visibility)', async () => {
    for (const v of ACTORS) {
      for (const k of MAY_SEE[v]) {
        const fav = await m.call(v, 'POST', `/api/v1/statuses/${m.post[k]}/favourite`);
        assert.deepEqual([fav.status, fav.body.id, fav.body.favourited], [200, m.post[k], true], `${v} ${k}`);
        const bookmark = await m.call(v, 'POST', `/api/v1/statuses/${m.post[k]}/bookmark`);
        assert.equal(bookmark.body.bookmarked, true);
        const react = await m.call(v, 'PUT', `/api/v1/pleroma/statuses/${m.post[k]}/reactions/${THUMBS}`);
        assert.equal(react.status, 200);
        const vote = await m.call(v, 'POST', `/api/v1/polls/${m.poll[k]}/votes`, { choices: [1] });
        assert.deepEqual([vote.status, vote.body.voted, vote.body.own_votes], [200, true, [1]], `${v} votes in ${k}`);
      }
      if (MAY_SEE[v].length) {
        const report = await m.call(v, 'POST', '/api/v1/reports', { account_id: m.id['amy'], status_ids: MAY_SEE[v].map((k) => m.post[k]) });
        assert.deepEqual([report.status, report.body.status_ids], [200, MAY_SEE[v].map((k) => m.post[k])], v);
      }
    }
    const counts = (await Promise.all(KINDS.map((k) => m.call('amy', 'GET', `/api/v1/statuses/${m.post[k]}`)))).map((r: Json) => r.body.favourites_count);
    assert.deepEqual(
      counts,
      KINDS.map((k) => ACTORS.filter((v) => MAY_SEE[v].includes(k)).length),
    );
  });
});
