// The notification pages' statements (issue 19) are prepared and, once PostgreSQL has seen a few executions, run
// from a generic plan: no planning per page. The v1 page writes its limit into the text (with `LIMIT $n` the generic
// plan is costed for a tenth of the rows and PostgreSQL re-plans every page), and the figures of a page of groups
// are read in the walk's own statement; the unread count, polled by clients, is prepared the same way.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { Database } from '../../src/store/db.js';
import { NotificationGroupStore } from '../../src/store/notification-groups.js';
import { GROUPABLE_TYPES, NotificationStore } from '../../src/store/notifications.js';
import { freshDatabaseUrl } from '../support/db.js';

describe('notification page statements', () => {
  let db: Database;
  let me: string;
  before(async () => {
    // A pool of one: every page below runs on the same connection, which holds the prepared statements.
    db = new Database(await freshDatabaseUrl(), 1, pino({ level: 'silent' }));
    me = (await db.one<{ id: string }>("INSERT INTO accounts (username, domain) VALUES ('me', NULL) RETURNING id::text"))!.id;
    await db.exec("INSERT INTO users (account_id, email, password_hash) VALUES ($1, 'me@example.test', '!')", [me]);
    await db.exec("INSERT INTO accounts (username, domain, uri) SELECT 'f' || i, 'far.example', 'https://far.example/f' || i FROM generate_series(1, 3000) i");
    // 3,000 follows, grouped per hundred (as if per hour).
    await db.exec(
      `INSERT INTO notifications (account_id, from_account_id, type, group_key)
       SELECT $1, a.id, 'follow', 'follow-' || ((row_number() OVER (ORDER BY a.id) - 1) / 100) FROM accounts a WHERE a.domain = 'far.example'`,
      [me],
    );
    await db.exec('ANALYZE');
  });
  after(() => db?.close());

  /** Plans of this connection's prepared statements that read notifications: [generic, custom] per statement. */
  const plans = async () =>
    db.rows<{ statement: string; generic: number; custom: number }>(
      "SELECT statement, generic_plans::int AS generic, custom_plans::int AS custom FROM pg_prepared_statements WHERE statement LIKE '%FROM notifications n%'",
    );

  it('runs the notifications page from a generic plan', async () => {
    const store = new NotificationStore(db);
    for (let i = 0; i < 10; i++) assert.equal((await store.list(me, { limit: 40 }, {})).items.length, 40);
    const [p, ...more] = await plans();
    assert.equal(more.length, 0, 'one statement for every page of this shape');
    assert.ok(p!.generic >= 4, `planned per page: ${JSON.stringify({ ...p, statement: undefined })}`);
  });

  it('reads a page of groups and their figures in one statement, from a generic plan', async () => {
    const groups = new NotificationGroupStore(db);
    let page: Awaited<ReturnType<NotificationGroupStore['pageWithData']>> | undefined;
    for (let i = 0; i < 10; i++) page = await groups.pageWithData(me, { limit: 20 }, {}, GROUPABLE_TYPES);
    assert.equal(page!.items.length, 20);
    const first = page!.items[0]!;
    const figures = page!.data.get(first.groupKey!);
    assert.equal(figures?.count, 100);
    assert.equal(figures?.sampleAccountIds.length, 8);
    const added = (await plans()).filter((p) => p.statement.includes('WITH RECURSIVE grouped') || p.statement.includes('GROUP BY n.group_key'));
    assert.equal(added.length, 1, 'the walk and the figures are one statement');
    assert.ok(added[0]!.statement.includes('WITH RECURSIVE grouped') && added[0]!.statement.includes('GROUP BY n.group_key'));
    assert.ok(added[0]!.generic >= 4, `planned per page: ${JSON.stringify({ ...added[0], statement: undefined })}`);
  });

  it('counts unread notifications from a generic plan', async () => {
    const groups = new NotificationGroupStore(db);
    for (let i = 0; i < 10; i++) assert.equal(await groups.unread(me, undefined, 100, {}), 100);
    const counted = (await plans()).filter((p) => p.statement.startsWith('SELECT count(*)'));
    assert.equal(counted.length, 1);
    assert.ok(counted[0]!.generic >= 4, `planned per count: ${JSON.stringify({ ...counted[0], statement: undefined })}`);
  });

  it('writes only the usual limits into the text: every other limit shares one statement', async () => {
    const store = new NotificationStore(db);
    for (let limit = 1; limit <= 80; limit++) assert.equal((await store.list(me, { limit }, {})).items.length, limit);
    const pages = (await plans()).filter((p) => p.statement.includes('SELECT n.*, sref.* FROM notifications n'));
    // 20, 40 and 80 written out, and the one with LIMIT $n for the 77 others.
    assert.equal(pages.length, 4, pages.map((p) => p.statement.slice(-20)).join('\n'));
  });
});
