// The link aggregator's rank refresher: the poller runs a round at once and again when due, survives a failed round;
// the claim lets one node refresh per period and gives the period back when the refresh fails; the real refresh
// decays a stale rank; and the server runs it as a permanent child of the supervision tree.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { startRankRefresher } from '../../actors/rank-refresher.js';
import { Database } from '../../src/store/db.js';
import { LinkAggregatorStore } from '../../src/store/link-aggregator.js';
import { LinkRankRefresh } from '../../src/store/link-rank-refresh.js';
import { freshDatabaseUrl } from '../support/db.js';
import { feedFixtures } from '../support/feed-fixtures.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

const TEN_MINUTES = 600_000;

describe('rank refresher (poller)', () => {
  it('refreshes at once, again when the refresh says it is due, and retries after a failure', async () => {
    const calls: number[] = [];
    const errors: unknown[] = [];
    const p = startRankRefresher({
      refresh: async () => {
        calls.push(Date.now());
        if (calls.length === 2) throw new Error('database away');
        return { refreshed: true, nextInMs: 1_000 };
      },
      onError: (e) => errors.push(e),
    });
    try {
      await eventually(() => assert.ok(calls.length >= 3, `${calls.length} rounds`), 10_000);
      assert.equal(errors.length, 1);
      assert.ok(calls[1]! - calls[0]! >= 990, 'the second round waited for the due time');
      assert.ok(p.alive);
    } finally {
      await p.stop(1_000);
    }
  });
});

describe('rank refresh claim', () => {
  let db: Database;
  let links: LinkAggregatorStore;
  before(async () => {
    db = new Database(await freshDatabaseUrl(), 2, pino({ level: 'silent' }));
    links = new LinkAggregatorStore(db);
  });
  after(() => db.close());

  it('lets one refresh through per period and decays a stale rank', async () => {
    const fx = feedFixtures(db);
    const group = await fx.account(false);
    const published = new Date(Date.now() - 5 * 3_600_000);
    const post = await links.recordPost({
      statusId: await fx.post(await fx.account(false), { at: published }),
      communityId: await links.communityId(group),
      name: 't',
      url: null,
      body: '',
      nsfw: false,
      published,
    });
    await db.exec('UPDATE lemmy_posts SET hot_rank = 1 WHERE id = $1', [post.id]);
    const claim = new LinkRankRefresh(db, links);
    const now = Date.now();
    const first = await claim.refreshIfDue(new Date(now), TEN_MINUTES);
    assert.equal(first.refreshed, true);
    assert.ok(first.posts >= 1);
    const rank = (await db.one<{ r: number; want: number }>('SELECT hot_rank AS r, lemmy_hot_rank(score, published) AS want FROM lemmy_posts WHERE id = $1', [
      post.id,
    ]))!;
    assert.ok(Math.abs(rank.r - rank.want) < 1e-3 * rank.want, `${rank.r} is Lemmy's ${rank.want}`);
    assert.deepEqual(await claim.refreshIfDue(new Date(now + 60_000), TEN_MINUTES), { refreshed: false, posts: 0, nextInMs: 540_000 });
    assert.equal((await claim.refreshIfDue(new Date(now + TEN_MINUTES), TEN_MINUTES)).refreshed, true);
  });

  it('lets exactly one of two nodes claiming at once refresh', async () => {
    await db.exec(`DELETE FROM settings WHERE key = 'lemmy_ranks_refreshed_at'`);
    const other = new Database(db.connectionString, 1, pino({ level: 'silent' }));
    try {
      const at = new Date();
      const both = await Promise.all([
        new LinkRankRefresh(db, links).refreshIfDue(at, TEN_MINUTES),
        new LinkRankRefresh(other, new LinkAggregatorStore(other)).refreshIfDue(at, TEN_MINUTES),
      ]);
      assert.deepEqual(both.map((r) => r.refreshed).sort(), [false, true]);
    } finally {
      await other.close();
    }
  });

  it('gives the period back when the refresh fails, so the next round retries', async () => {
    await db.exec(`DELETE FROM settings WHERE key = 'lemmy_ranks_refreshed_at'`);
    const failing = new LinkRankRefresh(db, {
      refreshRanks: async () => {
        throw new Error('statement timeout');
      },
    } as unknown as LinkAggregatorStore);
    const now = Date.now();
    await assert.rejects(failing.refreshIfDue(new Date(now), TEN_MINUTES), /statement timeout/);
    assert.equal((await new LinkRankRefresh(db, links).refreshIfDue(new Date(now + 1_000), TEN_MINUTES)).refreshed, true, 'first claim given back');
    await assert.rejects(failing.refreshIfDue(new Date(now + TEN_MINUTES + 1_000), TEN_MINUTES), /statement timeout/);
    assert.equal(
      (await new LinkRankRefresh(db, links).refreshIfDue(new Date(now + TEN_MINUTES + 2_000), TEN_MINUTES)).refreshed,
      true,
      'a later claim given back',
    );
  });
});

describe('rank refresher (supervised)', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s.stop());

  it('runs from the start as a permanent child of the root supervisor', async () => {
    await eventually(async () => {
      const r = await s.app.db.pool.query(`SELECT 1 FROM settings WHERE key = 'lemmy_ranks_refreshed_at'`);
      assert.equal(r.rowCount, 1, 'the actor claimed and ran its first refresh');
    });
    const refresher = s.app.supervisor.which('lemmy-ranks');
    assert.ok(refresher);
    await refresher.stop(1_000);
    await eventually(() => {
      const again = s.app.supervisor.which('lemmy-ranks');
      assert.ok(again && again !== refresher && again.alive);
    });
  });
});
