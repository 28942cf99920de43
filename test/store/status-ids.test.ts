// Status ids are the creation time's milliseconds and 16 bits of a sequence. History posts take their published time,
// which many posts share to the millisecond (servers that publish whole seconds): once the sequence has gone round,
// a second such post meets the first one's id. It must still be stored, not taken for the first.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { StatusStore, type NewStatus } from '../../src/store/statuses.js';
import { startTestServer, type TestServer } from '../support/server.js';

describe('status ids of backdated posts', () => {
  let s: TestServer;
  let statuses: StatusStore;
  let accountId: string;
  before(async () => {
    s = await startTestServer();
    statuses = new StatusStore(s.app.db);
    accountId = (await s.app.db.one<{ id: string }>(`INSERT INTO accounts (username, domain) VALUES ('sam', 'second.example') RETURNING id`))!.id;
  });
  after(() => s?.stop());

  const post = (n: number, published: Date): NewStatus => ({
    accountId,
    uri: `https://second.example/users/sam/statuses/${n}`,
    url: null,
    text: '',
    content: `<p>post ${n}</p>`,
    spoilerText: '',
    visibility: 'public',
    sensitive: false,
    language: null,
    inReplyToId: null,
    inReplyToAccountId: null,
    inReplyToUri: null,
    local: false,
    history: true,
    createdAt: published,
    mentionIds: [],
    tags: [],
  });

  it('two posts published in the same millisecond, the sequence gone round between them, are both stored', async () => {
    const published = new Date('2024-03-01T12:00:00.000Z');
    const first = await statuses.create(post(1, published));
    assert.ok(first.created);
    // Set the sequence so that its next value has the first id's low 16 bits: the same id, as after 65,536 others.
    const low = BigInt(first.status.id) & 0xffffn;
    const last = BigInt((await s.app.db.one<{ v: string }>('SELECT last_value::text AS v FROM timestamp_id_seq'))!.v);
    let next = (last & ~0xffffn) | low;
    if (next <= last) next += 0x10000n;
    await s.app.db.exec('SELECT setval($1::regclass, $2::bigint)', ['timestamp_id_seq', (next - 1n).toString()]);

    const second = await statuses.create(post(2, published));
    assert.ok(second.created, 'the second post is new, not the first one found again');
    assert.notEqual(second.status.id, first.status.id);
    assert.equal(second.status.uri, 'https://second.example/users/sam/statuses/2');
    const rows = await s.app.db.rows<{ uri: string }>('SELECT uri FROM statuses WHERE account_id = $1 ORDER BY uri', [accountId]);
    assert.deepEqual(
      rows.map((r) => r.uri),
      ['https://second.example/users/sam/statuses/1', 'https://second.example/users/sam/statuses/2'],
    );
  });
});
