// The entities written key by key for speed (issue 19) keep the keys, order and values of the ones they stand for:
// withAccountCounts is accountEntity with counts, and a status entity leaves out `application` and `pinned` exactly
// when Mastodon does.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../../config/schema.js';
import { accountEntity, withAccountCounts } from '../../src/entities/account.js';

const config = loadConfig({});
const at = new Date('2026-11-20T10:00:00Z');

describe('entity shapes', () => {
  for (const [name, row] of [
    ['local', { id: '1', username: 'ann', displayName: 'Ann', note: 'hi\nthere', locked: false, bot: false, discoverable: true, createdAt: at }],
    [
      'remote with published counts',
      {
        id: '2',
        username: 'bob',
        displayName: 'Bob "B"',
        note: '<p>x</p>',
        locked: true,
        bot: true,
        discoverable: null,
        createdAt: at,
        domain: 'remote.example',
        uri: 'https://remote.example/users/bob',
        url: 'https://remote.example/@bob',
        actorType: 'Group',
        fields: [{ name: 'site', value: '<a href="https://b.example">b</a>' }],
        remoteFollowersCount: 7,
        remoteFollowingCount: null,
        remoteStatusesCount: 3,
        publishedAt: at,
      },
    ],
  ] as const) {
    it(`withAccountCounts writes accountEntity with counts: ${name}`, () => {
      const counts = { followers: 12, following: 4, statuses: 99, lastStatusAt: new Date('2026-11-24T08:00:00Z') };
      const bare = Object.freeze(accountEntity(row, config));
      const direct = accountEntity(row, config, counts);
      const made = withAccountCounts(bare, row, counts);
      assert.deepStrictEqual(made, direct);
      assert.equal(JSON.stringify(made), JSON.stringify(direct));
      assert.equal(JSON.stringify(withAccountCounts(bare, row, undefined)), JSON.stringify(accountEntity(row, config)));
    });
  }
});
