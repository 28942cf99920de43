// Visibility on the wire, both ways: addressing() gives each visibility Mastodon's to/cc, and visibilityOf() reads
// the visibility back from to/cc however real servers spell them (the public collection as the full IRI, `as:Public`
// or `Public`, single values or arrays, the followers collection in to or cc, direct posts addressed only to the
// people they mention). And the quoted post of a Note under each name servers send it by. Pure: no server.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addressing } from '../../src/federation/note-document.js';
import { noteSchema, visibilityOf } from '../../src/federation/note-schema.js';

const PUBLIC = 'https://www.w3.org/ns/activitystreams#Public';
const AUTHOR = 'https://mastodon.example/users/alder';
const FOLLOWERS = `${AUTHOR}/followers`;
const SOL = 'https://stoa.example/users/sol';
const WREN = 'https://akkoma.example/users/wren';

const note = (fields: Record<string, unknown>) =>
  noteSchema.parse({ id: `${AUTHOR}/statuses/112233445566778899`, type: 'Note', attributedTo: AUTHOR, content: '<p>hello</p>', ...fields });

describe('addressing()', () => {
  it('addresses each visibility as Mastodon does', () => {
    assert.deepEqual(addressing('public', FOLLOWERS, [SOL, WREN]), { to: [PUBLIC], cc: [FOLLOWERS, SOL, WREN] });
    assert.deepEqual(addressing('unlisted', FOLLOWERS, [SOL]), { to: [FOLLOWERS], cc: [PUBLIC, SOL] });
    assert.deepEqual(addressing('private', FOLLOWERS, [SOL]), { to: [FOLLOWERS], cc: [SOL] });
    assert.deepEqual(addressing('direct', FOLLOWERS, [SOL, WREN]), { to: [SOL, WREN], cc: [] });
  });

  it('never makes a followers-only or direct post public, with or without mentions', () => {
    for (const v of ['private', 'direct'] as const) {
      for (const mentioned of [[], [SOL]]) {
        const { to, cc } = addressing(v, FOLLOWERS, mentioned);
        assert.ok(![...to, ...cc].includes(PUBLIC), `${v} with ${mentioned.length} mentions`);
      }
    }
    assert.ok(!addressing('direct', FOLLOWERS, [SOL]).to.includes(FOLLOWERS));
  });

  it('reads back as the visibility it was written for', () => {
    for (const v of ['public', 'unlisted', 'private', 'direct'] as const) {
      for (const mentioned of [[], [SOL]]) {
        assert.equal(visibilityOf(note(addressing(v, FOLLOWERS, mentioned)), FOLLOWERS), v, `${v} with ${mentioned.length} mentions`);
      }
    }
  });
});

describe('visibilityOf()', () => {
  const cases: [string, Record<string, unknown>, 'public' | 'unlisted' | 'private' | 'direct'][] = [
    ['Mastodon public', { to: [PUBLIC], cc: [FOLLOWERS, SOL] }, 'public'],
    ['public as the compact as:Public (Pleroma, older Mastodon)', { to: ['as:Public'], cc: [FOLLOWERS] }, 'public'],
    ['public as the bare term Public', { to: ['Public'], cc: [] }, 'public'],
    ['public as a single value, not an array (GoToSocial)', { to: PUBLIC, cc: FOLLOWERS }, 'public'],
    ['public given as an object', { to: [{ id: PUBLIC }], cc: [] }, 'public'],
    ['public in both to and cc', { to: [PUBLIC, SOL], cc: [PUBLIC] }, 'public'],
    ['Mastodon unlisted', { to: [FOLLOWERS], cc: [PUBLIC, SOL] }, 'unlisted'],
    ['unlisted with as:Public in cc', { to: [FOLLOWERS], cc: ['as:Public'] }, 'unlisted'],
    ['unlisted with Public in cc', { to: [FOLLOWERS], cc: 'Public' }, 'unlisted'],
    ['Misskey home (unlisted) with a mention', { to: [FOLLOWERS], cc: [PUBLIC, SOL] }, 'unlisted'],
    ['Mastodon followers-only', { to: [FOLLOWERS], cc: [] }, 'private'],
    ['followers-only mentioning someone', { to: [FOLLOWERS], cc: [SOL] }, 'private'],
    ['followers-only with the followers collection in cc', { to: [SOL], cc: [FOLLOWERS] }, 'private'],
    ['followers-only, to a single value', { to: FOLLOWERS }, 'private'],
    ['Mastodon direct: only the mentioned', { to: [SOL, WREN], cc: [] }, 'direct'],
    ['direct with no cc at all', { to: [SOL] }, 'direct'],
    ['nobody addressed', {}, 'direct'],
    ["someone else's followers collection is not the author's", { to: [`${WREN}/followers`], cc: [SOL] }, 'direct'],
    ['a public-looking IRI that is not the public collection', { to: ['https://www.w3.org/ns/activitystreams#Publicx'], cc: [] }, 'direct'],
  ];
  for (const [name, addressed, expected] of cases) {
    it(`${name}: ${expected}`, () => assert.equal(visibilityOf(note(addressed), FOLLOWERS), expected));
  }

  it('treats followers-only addressing as direct when the author has no followers collection we know', () => {
    assert.equal(visibilityOf(note({ to: [FOLLOWERS], cc: [SOL] }), null), 'direct');
    assert.equal(visibilityOf(note({ to: [FOLLOWERS], cc: [PUBLIC] }), null), 'unlisted');
  });
});

describe('the quoted post of a Note', () => {
  const QUOTED = 'https://stoa.example/users/sol/statuses/7241896355120586001';
  for (const key of ['quote', '_misskey_quote', 'quoteUri', 'quoteUrl']) {
    it(`is read from ${key} alone`, () => {
      assert.equal(note({ to: [PUBLIC], [key]: QUOTED }).quote, QUOTED);
    });
  }

  it('prefers FEP-044f quote, then _misskey_quote, quoteUri, quoteUrl; refuses non-http values', () => {
    const other = (n: number) => `https://elsewhere.example/notes/${n}`;
    assert.equal(note({ quoteUrl: other(4), quoteUri: other(3), _misskey_quote: other(2), quote: other(1) }).quote, other(1));
    assert.equal(note({ quoteUrl: other(4), quoteUri: other(3), _misskey_quote: other(2) }).quote, other(2));
    assert.equal(note({ quoteUrl: other(4), quoteUri: other(3) }).quote, other(3));
    assert.equal(note({ quote: { id: QUOTED, type: 'Note' } }).quote, QUOTED, 'an embedded object by its id');
    assert.equal(note({ quote: 'javascript:alert(1)' }).quote, null);
    assert.equal(note({ quoteUrl: '' }).quote, null);
    assert.equal(note({}).quote, null);
  });
});
