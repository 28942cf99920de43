// The visibility rules read a signed-in viewer's blocks and mutes once per statement (a hashed set probed per row),
// not once per row (issue 19): a page gives the same answer, and no scan of blocks or mutes runs more than once
// however many rows are judged, for a viewer with a few blocks as for one with thousands (an imported blocklist).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { Database } from '../../src/store/db.js';
import { NotificationStore } from '../../src/store/notifications.js';
import { quiet, readableRow, visibleTo } from '../../src/store/visibility.js';
import { freshDatabaseUrl } from '../support/db.js';

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Actual Loops'?: number;
  Plans?: PlanNode[];
}

/** Every scan of `table` in the plan, with how many times it ran. */
function scansOf(node: PlanNode, table: string, out: { type: string; loops: number }[] = []) {
  if (node['Relation Name'] === table) out.push({ type: node['Node Type'], loops: node['Actual Loops'] ?? 0 });
  for (const p of node.Plans ?? []) scansOf(p, table, out);
  return out;
}

describe('visibility rules: a viewer’s blocks and mutes are read once per statement', () => {
  let db: Database;
  const viewers: Record<'few' | 'many', { id: string; others: string[] }> = { few: { id: '', others: [] }, many: { id: '', others: [] } };
  before(async () => {
    db = new Database(await freshDatabaseUrl(), 1, pino({ level: 'silent' }));
    const ids = (
      await db.rows<{ id: string }>(
        "INSERT INTO accounts (username, domain, uri) SELECT 'a' || i, 'far.example', 'https://far.example/a' || i FROM generate_series(1, 4000) i RETURNING id::text",
      )
    ).map((r) => r.id);
    // `many` blocks 3,000 accounts, is blocked by 500 and mutes 400 (100 left alone); `few` blocks 200, is blocked by
    // 50 and mutes 50.
    const sets = { many: [3000, 500, 400], few: [200, 50, 50] } as const;
    for (const name of ['many', 'few'] as const) {
      const id = (await db.one<{ id: string }>('INSERT INTO accounts (username, domain) VALUES ($1, NULL) RETURNING id::text', [name]))!.id;
      await db.exec(`INSERT INTO users (account_id, email, password_hash) VALUES ($1, $2 || '@example.test', '!')`, [id, name]);
      const [b, by, m] = sets[name];
      await db.exec('INSERT INTO blocks (account_id, target_account_id) SELECT $1, unnest($2::bigint[])', [id, ids.slice(0, b)]);
      await db.exec('INSERT INTO blocks (account_id, target_account_id) SELECT unnest($2::bigint[]), $1', [id, ids.slice(3000, 3000 + by)]);
      await db.exec('INSERT INTO mutes (account_id, target_account_id, hide_notifications) SELECT $1, unnest($2::bigint[]), true', [
        id,
        ids.slice(3500, 3500 + m),
      ]);
      viewers[name] = { id, others: ids.filter((_, i) => i >= b && !(i >= 3000 && i < 3000 + by) && !(i >= 3500 && i < 3500 + m)) };
      // A favourite of the viewer's own post from every account.
      const mine = (await db.one<{ id: string }>(
        "INSERT INTO statuses (account_id, content, visibility, local) VALUES ($1, 'mine', 0, true) RETURNING id::text",
        [id],
      ))!.id;
      await db.exec("INSERT INTO notifications (account_id, from_account_id, type, status_id) SELECT $1, unnest($2::bigint[]), 'favourite', $3", [
        id,
        ids,
        mine,
      ]);
    }
    // One public post by every account.
    await db.exec("INSERT INTO statuses (account_id, content, visibility, local) SELECT unnest($1::bigint[]), 'hello', 0, false", [ids]);
    await db.exec('ANALYZE');
  });
  after(() => db?.close());

  const sql = `SELECT s.account_id::text FROM statuses s WHERE s.content = 'hello' AND ${visibleTo('$1')} AND ${quiet('$1')}`;
  const plan = async (viewer: string): Promise<PlanNode> =>
    (await db.rows<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`, [viewer]))[0]!['QUERY PLAN'][0]!.Plan;

  for (const name of ['few', 'many'] as const) {
    it(`judges 4,000 statuses with one scan of each set, and shows only the authors left alone (${name} blocks and mutes)`, async () => {
      const { id, others } = viewers[name];
      const shown = (await db.rows<{ account_id: string }>(sql, [id])).map((r) => r.account_id).sort();
      assert.deepEqual(shown, [...others].sort());
      const root = await plan(id);
      for (const table of ['blocks', 'mutes']) {
        const scans = scansOf(root, table);
        assert.ok(scans.length > 0, `${table} is read`);
        for (const s of scans) assert.ok(s.loops <= 1, `${table} read ${s.loops} times by a ${s.type}`);
      }
    });
  }

  for (const name of ['few', 'many'] as const) {
    it(`lists notifications from the senders left alone only (${name} blocks and mutes)`, async () => {
      const { id, others } = viewers[name];
      const page = await new NotificationStore(db).list(id, { limit: 80 }, {});
      assert.equal(page.items.length, 80);
      for (const n of page.items) assert.ok(others.includes(n.fromAccountId), `a notification from ${n.fromAccountId}, who is blocked, blocking or muted`);
    });
  }
});

describe('visibility rules: a boosted status judged by status_readable (migration 060)', () => {
  let db: Database;
  const id: Record<string, string> = {};
  before(async () => {
    db = new Database(await freshDatabaseUrl(), 1, pino({ level: 'silent' }));
    for (const name of ['author', 'follower', 'stranger', 'booster', 'blocked', 'gone']) {
      id[name] = (await db.one<{ id: string }>('INSERT INTO accounts (username, domain) VALUES ($1, NULL) RETURNING id::text', [name]))!.id;
    }
    await db.exec('INSERT INTO follows (account_id, target_account_id) VALUES ($1, $2)', [id['follower'], id['author']]);
    await db.exec('INSERT INTO blocks (account_id, target_account_id) VALUES ($1, $2)', [id['author'], id['blocked']]);
    await db.exec('UPDATE accounts SET suspended_at = now() WHERE id = $1', [id['gone']]);
    const post = async (who: string, visibility: number, extra = '') =>
      (await db.one<{ id: string }>(
        `INSERT INTO statuses (account_id, content, visibility, local${extra ? ', deleted_at' : ''}) VALUES ($1, 'x', $2, true${extra ? ', now()' : ''}) RETURNING id::text`,
        [id[who], visibility],
      ))!.id;
    const originals = [
      await post('author', 0),
      await post('author', 1),
      await post('author', 2),
      await post('author', 3),
      await post('author', 0, 'deleted'),
      await post('gone', 0),
    ];
    await db.exec('INSERT INTO status_mentions (status_id, account_id) VALUES ($1, $2)', [originals[3], id['stranger']]);
    // A boost of each, by someone no viewer has blocked or followed (boosting a private post is not allowed, but the rule must not care).
    for (const o of originals)
      await db.exec("INSERT INTO statuses (account_id, content, visibility, local, reblog_of_id) VALUES ($1, '', 0, true, $2)", [id['booster'], o]);
  });
  after(() => db?.close());

  it('answers as the rule written inline, for every viewer and every boost', async () => {
    for (const viewer of ['author', 'follower', 'stranger', 'booster', 'blocked']) {
      const read = async (boosts: 'inline' | 'called') =>
        (await db.rows<{ id: string }>(`SELECT s.id::text FROM statuses s WHERE ${visibleTo('$1', 's', boosts)} ORDER BY s.id`, [id[viewer]])).map((r) => r.id);
      const inline = await read('inline');
      assert.deepEqual(await read('called'), inline, viewer);
    }
    // The rule does tell them apart: the stranger reads the boost of the direct post that mentions them, the follower does not.
    const boostsOf = async (viewer: string) =>
      (await db.one<{ n: number }>(`SELECT count(*)::int AS n FROM statuses s WHERE s.reblog_of_id IS NOT NULL AND ${visibleTo('$1', 's', 'called')}`, [
        id[viewer],
      ]))!.n;
    assert.equal(await boostsOf('author'), 4);
    assert.equal(await boostsOf('follower'), 3);
    assert.equal(await boostsOf('stranger'), 3);
    assert.equal(await boostsOf('blocked'), 0);
  });

  it('is the rule of store/visibility.ts, written out', async () => {
    const body = (await db.one<{ src: string }>("SELECT prosrc AS src FROM pg_proc WHERE proname = 'status_readable'"))!.src;
    assert.ok(body.includes(readableRow('viewer', 's')), 'migration 060 no longer matches readableRow: write a migration that replaces status_readable');
  });
});
