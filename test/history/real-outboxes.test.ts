// Outboxes as real servers serve them (test/fixtures/outboxes: Mastodon, GoToSocial, Misskey, Akkoma, Mitra) walked
// by one history job each: every one imports the same two public posts, with their dates, and nothing else (the
// followers-only post, the Like and the Announce of a post from elsewhere are counted and skipped).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FED_ENV } from '../support/api.js';
import { plain, remoteAccount, runHistory, setBareIri, statusesOf } from '../support/history-harness.js';
import { startHistoryOrigin, type HistoryOrigin } from '../support/history-origin.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';

const EXPECTED = [
  { text: 'First light over the harbour', created_at: '2024-03-01T10:00:00.000Z', visibility: 'public' },
  { text: 'Notes on bread: a long ferment', created_at: '2024-02-20T08:30:00.000Z', visibility: 'public' },
];

describe('remote history: real servers’ outboxes', () => {
  let s: TestServer;
  let o: HistoryOrigin;
  let m: LocalMembers;

  before(async () => {
    s = await startTestServer(FED_ENV);
    o = await startHistoryOrigin();
    m = await createMembers(s, ['reader']);
  });
  after(async () => {
    await o.close();
    await s.stop();
  });

  const servers: { name: string; actor: string; examined: number; bareIri?: boolean; signed?: boolean }[] = [
    { name: 'mastodon', actor: 'alder', examined: 4 },
    { name: 'gotosocial', actor: 'birch', examined: 2, bareIri: true, signed: true },
    { name: 'misskey', actor: '9qx1abc', examined: 3 },
    { name: 'akkoma', actor: 'cedar', examined: 4 },
    { name: 'mitra', actor: 'dogwood', examined: 2 },
  ];

  for (const server of servers) {
    it(`imports ${server.name}'s outbox to the same posts`, async () => {
      o.requireSignature = server.signed ?? false;
      await setBareIri(s, server.bareIri ?? false);
      o.load(server.name);
      const account = await remoteAccount(s, o.actor(server.actor));
      const { outcome, ledger } = await runHistory(s, account);
      assert.ok(outcome.kind === 'partial' || outcome.kind === 'complete', JSON.stringify(outcome));
      assert.equal(ledger.examined, server.examined);
      assert.equal(ledger.imported, 2);
      const seen = (await statusesOf(s, m.token['reader']!, account.id)).map((st) => ({
        text: plain(st.content),
        created_at: st.created_at,
        visibility: st.visibility,
      }));
      assert.deepEqual(seen, EXPECTED);
      if (server.signed) assert.ok(o.signed(`/users/${server.actor}/outbox`), 'the outbox was fetched signed');
    });
  }
});
