// The AS2 schemas against documents shaped like what Mastodon, Akkoma/Pleroma, Misskey, GoToSocial, Lemmy and Fedify
// really send (test/fixtures/), and against hostile documents. Pure: no server, no database.
import assert from 'node:assert/strict';
import { createPublicKey } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { activitySchema, actorSchema, idOf, keyOrActorSchema, orderedCollectionSchema, type ActivityDoc, type ActorDoc } from '../../src/federation/as2.js';
import { actorLink, webFingerSchema } from '../../src/federation/webfinger-doc.js';

const FIXTURES = fileURLToPath(new URL('../../../test/fixtures/', import.meta.url));
const PUBLIC = 'https://www.w3.org/ns/activitystreams#Public';
const STOA = 'https://stoa.example/users/sol';
const STOA_POST = 'https://stoa.example/users/sol/statuses/7241896355120586001';

type Doc = Record<string, unknown>;

function fixture(path: string): Doc {
  return JSON.parse(readFileSync(FIXTURES + path, 'utf8')) as Doc;
}

function fixtureNames(dir: string): string[] {
  return readdirSync(FIXTURES + dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.slice(0, -'.json'.length))
    .sort();
}

function parseActor(doc: unknown): ActorDoc {
  const r = actorSchema.safeParse(doc);
  assert.ok(r.success, `actor should parse: ${r.success ? '' : JSON.stringify(r.error.issues)}`);
  return r.data;
}

/** Asserts the listed fields of the parsed document, one by one so a failure names the field. */
function assertFields<T extends object>(actual: T, expected: Partial<T>, label: string): void {
  for (const [key, value] of Object.entries(expected)) {
    assert.deepEqual(actual[key as keyof T], value, `${label}: ${key}`);
  }
}

function assertRsa2048(pem: string, label: string): void {
  const key = createPublicKey(pem);
  assert.equal(key.asymmetricKeyType, 'rsa', label);
  assert.equal(key.asymmetricKeyDetails?.modulusLength, 2048, label);
}

const M = 'https://mastodon.example/users/alder';
const A = 'https://akkoma.example/users/wren';
const P = 'https://pleroma.example/users/newsbot';
const MK = 'https://misskey.example/users/9mxq3t5b2k';
const G = 'https://gts.example/users/birch';
const LP = 'https://lemmy.example/u/ferris';
const LG = 'https://lemmy.example/c/gardening';
const F = 'https://fedify.example/users/quill';

const mastodonWebsite =
  '<a href="https://alder.example" target="_blank" rel="nofollow noopener me" translate="no"><span class="invisible">https://</span><span class="">alder.example</span><span class="invisible"></span></a>';

const actorExpectations: Record<string, Partial<ActorDoc> & { keyId: string }> = {
  mastodon: {
    id: M,
    type: 'Person',
    preferredUsername: 'alder',
    name: 'Alder :verified:',
    inbox: `${M}/inbox`,
    sharedInbox: 'https://mastodon.example/inbox',
    outbox: `${M}/outbox`,
    followers: `${M}/followers`,
    following: `${M}/following`,
    featured: `${M}/collections/featured`,
    keyId: `${M}#main-key`,
    icon: 'https://files.mastodon.example/accounts/avatars/109/301/221/408/536/412/original/5c1d2e7a9b.png',
    image: 'https://files.mastodon.example/accounts/headers/109/301/221/408/536/412/original/9ab30f1c2d.jpg',
    url: 'https://mastodon.example/@alder',
    fields: [
      { name: 'Website', value: mastodonWebsite },
      { name: 'Pronouns', value: 'they/them' },
    ],
    manuallyApprovesFollowers: true,
    discoverable: true,
    indexable: false,
    published: '2022-11-07T00:00:00.000Z',
    alsoKnownAs: ['https://old.example/users/alder'],
    movedTo: null,
    memorial: false,
    suspended: false,
  },
  akkoma: {
    id: A,
    type: 'Person',
    preferredUsername: 'wren',
    inbox: `${A}/inbox`,
    sharedInbox: 'https://akkoma.example/inbox',
    featured: `${A}/collections/featured`,
    keyId: `${A}#main-key`,
    icon: 'https://akkoma.example/media/6f0b3c1e4d2a9e8f7c6b5a4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f.png',
    url: A,
    fields: [
      { name: 'Matrix', value: '@wren:matrix.example' },
      { name: 'Site', value: '<a href="https://wren.example" rel="me nofollow noopener noreferrer">https://wren.example</a>' },
    ],
    manuallyApprovesFollowers: false,
    discoverable: false,
    indexable: null,
    published: null,
    alsoKnownAs: [],
  },
  pleroma: {
    id: P,
    type: 'Service',
    preferredUsername: 'newsbot',
    inbox: `${P}/inbox`,
    sharedInbox: 'https://pleroma.example/inbox',
    keyId: `${P}#main-key`,
    icon: 'https://pleroma.example/media/2b9f4e6a-5d1c-4f3e-9a8b-7c6d5e4f3a2b/newsbot.png',
    image: null,
    url: P,
    fields: [],
    manuallyApprovesFollowers: false,
    summary: 'Automated headlines, hourly.',
    alsoKnownAs: ['https://oldnews.example/users/newsbot'],
  },
  misskey: {
    id: MK,
    type: 'Person',
    preferredUsername: 'kettle',
    name: 'Kettle 🫖',
    inbox: `${MK}/inbox`,
    sharedInbox: 'https://misskey.example/inbox',
    featured: `${MK}/collections/featured`,
    keyId: `${MK}#main-key`,
    icon: 'https://misskey.example/files/webpublic-4c8e2a1f-7b3d-4e9a-8f6c-1d2e3f4a5b6c.webp',
    image: null,
    url: 'https://misskey.example/@kettle',
    fields: [{ name: 'Blog', value: '<a href="https://kettle.example/" rel="me nofollow noopener" target="_blank">https://kettle.example/</a>' }],
    manuallyApprovesFollowers: false,
    discoverable: true,
    published: null,
  },
  gotosocial: {
    id: G,
    type: 'Person',
    preferredUsername: 'birch',
    inbox: `${G}/inbox`,
    sharedInbox: null,
    featured: `${G}/collections/featured`,
    keyId: `${G}/main-key`,
    icon: 'https://gts.example/fileserver/01HQ3ZP8K7T1M2N3B4V5C6X7Z8/attachment/original/01HQ3ZQ2W9E8R7T6Y5U4I3O2P1.webp',
    url: 'https://gts.example/@birch',
    fields: [
      { name: 'Pronouns', value: 'she/her' },
      {
        name: 'Garden log',
        value: '<a href="https://birch.example/log" rel="nofollow noreferrer noopener" target="_blank">https://birch.example/log</a>',
      },
    ],
    manuallyApprovesFollowers: true,
    discoverable: true,
    indexable: true,
    published: '2023-09-14T08:12:45.000Z',
    alsoKnownAs: ['https://oldgts.example/users/birch'],
  },
  'lemmy-person': {
    id: LP,
    type: 'Person',
    preferredUsername: 'ferris',
    name: 'Ferris the Crab',
    inbox: `${LP}/inbox`,
    sharedInbox: 'https://lemmy.example/inbox',
    outbox: `${LP}/outbox`,
    followers: null,
    following: null,
    featured: null,
    keyId: `${LP}#main-key`,
    icon: 'https://lemmy.example/pictrs/image/3f1e2d4c-5b6a-4789-9abc-def012345678.webp',
    url: null,
    fields: [],
    manuallyApprovesFollowers: false,
    discoverable: null,
    published: '2023-06-01T10:20:30.123Z',
  },
  'lemmy-group': {
    id: LG,
    type: 'Group',
    preferredUsername: 'gardening',
    name: 'Gardening',
    inbox: `${LG}/inbox`,
    sharedInbox: 'https://lemmy.example/inbox',
    followers: `${LG}/followers`,
    featured: `${LG}/featured`,
    keyId: `${LG}#main-key`,
    icon: 'https://lemmy.example/pictrs/image/1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f.png',
    url: null,
    fields: [],
    manuallyApprovesFollowers: false,
    published: '2023-03-02T16:43:50.799Z',
  },
  fedify: {
    id: F,
    type: 'Person',
    preferredUsername: 'quill',
    name: 'Quill the Fedify bot',
    inbox: `${F}/inbox`,
    sharedInbox: 'https://fedify.example/inbox',
    followers: `${F}/followers`,
    keyId: `${F}#main-key`,
    icon: 'https://fedify.example/media/quill.png',
    url: 'https://fedify.example/@quill',
    fields: [{ name: 'Home', value: '<a href="https://quill.example">quill.example</a>' }],
    manuallyApprovesFollowers: true,
    discoverable: true,
    published: '2024-03-05T09:21:00.000Z',
  },
};

describe('actorSchema on real servers’ actor documents', () => {
  it('has expectations for every actor fixture', () => {
    assert.deepEqual(
      fixtureNames('actors').filter((n) => n !== 'gotosocial-key'),
      Object.keys(actorExpectations).sort(),
    );
  });

  for (const [name, { keyId, ...expected }] of Object.entries(actorExpectations)) {
    it(`parses the ${name} actor into the expected fields`, () => {
      const actor = parseActor(fixture(`actors/${name}.json`));
      assertFields(actor, expected, name);
      assert.equal(actor.publicKey?.id, keyId, `${name}: publicKey.id`);
      assert.equal(actor.publicKey?.owner, actor.id, `${name}: publicKey.owner`);
      assertRsa2048(actor.publicKey.publicKeyPem, `${name}: publicKeyPem`);
    });
  }

  it('has only real RSA-2048 public keys in every publicKeyPem of every fixture', () => {
    const pems: string[] = [];
    const walk = (x: unknown): void => {
      if (Array.isArray(x)) x.forEach(walk);
      else if (typeof x === 'object' && x !== null) {
        for (const [k, v] of Object.entries(x)) {
          if (k === 'publicKeyPem' && typeof v === 'string') pems.push(v);
          else walk(v);
        }
      }
    };
    for (const dir of ['actors', 'activities']) for (const name of fixtureNames(dir)) walk(fixture(`${dir}/${name}.json`));
    // 8 actors (Fedify has two keys), the GoToSocial key stub, the key inside the Mastodon Update.
    assert.equal(pems.length, 11);
    for (const [i, pem] of pems.entries()) assertRsa2048(pem, `pem ${i}`);
  });

  it('keeps every attachment raw, PropertyValue or not, including a single unwrapped one (Fedify)', () => {
    const fedify = parseActor(fixture('actors/fedify.json'));
    assert.deepEqual(fedify.attachment, [fixture('actors/fedify.json').attachment]);
    const doc = fixture('actors/mastodon.json');
    const proof = { type: 'VerifiableIdentityStatement', subject: 'did:key:z6Mk', proof: { type: 'DataIntegrityProof' } };
    const actor = parseActor({ ...doc, attachment: [...(doc.attachment as unknown[]), proof] });
    assert.equal(actor.attachment.length, 3);
    assert.deepEqual(actor.attachment[2], proof);
    assert.equal(actor.fields.length, 2);
  });

  it('picks the key owned by the actor from a publicKey array (Fedify sends several)', () => {
    const doc = fixture('actors/fedify.json');
    const keys = doc.publicKey as Doc[];
    assert.equal(keys.length, 2);
    const foreign = { ...keys[0]!, id: 'https://evil.example/k', owner: 'https://evil.example/users/x' };
    const actor = parseActor({ ...doc, publicKey: [foreign, keys[1]] });
    assert.equal(actor.publicKey?.id, `${F}#key-2`);
  });

  it('reads sharedInbox from the top level when endpoints is absent (Misskey repeats it there)', () => {
    const { endpoints: _endpoints, ...doc } = fixture('actors/misskey.json');
    assert.equal(parseActor(doc).sharedInbox, 'https://misskey.example/inbox');
  });

  it('reads url, icon and image in their string, Link and array forms', () => {
    const actor = parseActor({
      ...fixture('actors/lemmy-person.json'),
      url: [{ type: 'Link', mediaType: 'text/html', href: 'https://lemmy.example/u/ferris/profile' }, 'https://lemmy.example/other'],
      icon: [{ type: 'Image', url: { type: 'Link', href: 'https://lemmy.example/a.png' } }],
      image: 'https://lemmy.example/b.png',
    });
    assert.equal(actor.url, 'https://lemmy.example/u/ferris/profile');
    assert.equal(actor.icon, 'https://lemmy.example/a.png');
    assert.equal(actor.image, 'https://lemmy.example/b.png');
  });

  it('reads a Mastodon suspended account and a moved one', () => {
    const doc = fixture('actors/mastodon.json');
    // Mastodon's rendering of an unavailable account: no profile, suspended flag set.
    const suspended = parseActor({
      ...doc,
      name: 'alder',
      summary: '',
      attachment: [],
      tag: [],
      icon: undefined,
      image: undefined,
      suspended: true,
      discoverable: false,
      indexable: false,
    });
    assertFields(suspended, { suspended: true, summary: null, icon: null, image: null, fields: [], name: 'alder' }, 'suspended');
    const moved = parseActor({ ...doc, movedTo: 'https://new.example/users/alder' });
    assert.equal(moved.movedTo, 'https://new.example/users/alder');
  });

  it('falls back to nameMap and summaryMap, and treats a blank name as none', () => {
    const { name: _n, summary: _s, ...doc } = fixture('actors/akkoma.json');
    const actor = parseActor({ ...doc, nameMap: { cy: 'Dryw' }, summaryMap: { cy: '<p>Aderyn</p>' } });
    assert.equal(actor.name, 'Dryw');
    assert.equal(actor.summary, '<p>Aderyn</p>');
    assert.equal(parseActor({ ...doc, name: '  ' }).name, null);
  });
});

describe('actorSchema on hostile documents', () => {
  const base = fixture('actors/mastodon.json');

  function assertRejected(doc: unknown, label: string): void {
    assert.equal(actorSchema.safeParse(doc).success, false, label);
  }

  it('rejects a document without inbox, id or preferredUsername', () => {
    for (const key of ['inbox', 'id', 'preferredUsername', 'type']) {
      const { [key]: _dropped, ...doc } = base;
      assertRejected(doc, `without ${key}`);
    }
    assertRejected({ ...base, preferredUsername: '' }, 'empty preferredUsername');
  });

  it('rejects ids and inboxes that are not http(s) URLs', () => {
    assertRejected({ ...base, id: 'javascript:alert(1)' }, 'javascript: id');
    assertRejected({ ...base, id: '/users/alder' }, 'relative id');
    assertRejected({ ...base, id: 'https://user:secret@mastodon.example/users/alder' }, 'id with credentials');
    assertRejected({ ...base, inbox: 'ftp://mastodon.example/inbox' }, 'ftp inbox');
    assertRejected({ ...base, inbox: { id: `${M}/inbox` } }, 'inbox object');
    assertRejected({ ...base, id: `https://mastodon.example/${'a'.repeat(5000)}` }, 'overlong id');
  });

  it('rejects objects that are not actors', () => {
    assertRejected({ ...base, type: 'Note' }, 'Note');
    assertRejected({ ...base, type: ['Note', 'Image'] }, 'type array without an actor type');
    for (const x of [null, 42, 'https://mastodon.example/users/alder', [base], {}]) assertRejected(x, JSON.stringify(x).slice(0, 40));
    assert.equal(parseActor({ ...base, type: ['Person', 'https://example.net/ns#Extra'] }).type, 'Person');
  });

  it('truncates a 100k-character name and an oversized summary instead of refusing the profile', () => {
    const actor = parseActor({ ...base, name: 'n'.repeat(100_000), summary: 's'.repeat(200_000) });
    assert.equal(actor.name, 'n'.repeat(2000));
    assert.equal(actor.summary?.length, 50_000);
  });

  it('does not cut a surrogate pair in half when truncating', () => {
    const actor = parseActor({ ...base, name: `${'n'.repeat(1999)}🫖tail` });
    assert.equal(actor.name, 'n'.repeat(1999));
  });

  it('caps a huge attachment array and the fields taken from it', () => {
    const long = 'v'.repeat(10_000);
    const attachment = Array.from({ length: 10_000 }, (_, i) => ({ type: 'PropertyValue', name: `k${i}`, value: long }));
    const actor = parseActor({ ...base, attachment });
    assert.equal(actor.attachment.length, 64);
    assert.equal(actor.fields.length, 50);
    assert.equal(actor.fields[0]!.value.length, 4096);
  });

  it('drops script and data URLs from url, icon, image, sharedInbox and collections', () => {
    const actor = parseActor({
      ...base,
      url: 'javascript:alert(1)',
      icon: { type: 'Image', url: 'data:image/png;base64,AAAA' },
      image: 'javascript:alert(2)',
      endpoints: { sharedInbox: 'javascript:alert(3)' },
      followers: 'file:///etc/passwd',
      alsoKnownAs: ['javascript:alert(4)', 'https://ok.example/users/a'],
      movedTo: 'mailto:x@example.net',
    });
    assertFields(
      actor,
      { url: null, icon: null, image: null, sharedInbox: null, followers: null, movedTo: null, alsoKnownAs: ['https://ok.example/users/a'] },
      'hostile urls',
    );
  });

  it('ignores a key that the actor does not own (no key substitution)', () => {
    const actor = parseActor({ ...base, publicKey: { id: 'https://evil.example/users/x#main-key', owner: 'https://evil.example/users/x', publicKeyPem: 'x' } });
    assert.equal(actor.publicKey, null);
  });

  it('turns wrongly typed optional fields into nulls and never throws on unknown fields', () => {
    const actor = parseActor({
      ...base,
      name: 42,
      summary: { html: true },
      icon: 7,
      url: [[['https://deep.example']]],
      endpoints: 'https://mastodon.example/endpoints',
      published: 'yesterday',
      manuallyApprovesFollowers: 'true',
      discoverable: 'yes',
      attachment: 'not an array',
      publicKey: [null, 3, 'https://mastodon.example/key'],
      'https://example.net/ns#anything': { nested: [1, 2, 3] },
    });
    assertFields(
      actor,
      {
        name: null,
        summary: null,
        icon: null,
        url: null,
        sharedInbox: null,
        published: null,
        manuallyApprovesFollowers: false,
        discoverable: null,
        fields: [],
        attachment: ['not an array'],
        publicKey: null,
      },
      'wrong types',
    );
  });

  it('strips NUL characters that PostgreSQL text would refuse', () => {
    const actor = parseActor({ ...base, name: 'Al\u0000der', attachment: [{ type: 'PropertyValue', name: 'a\u0000', value: '\u0000b' }] });
    assert.equal(actor.name, 'Alder');
    assert.deepEqual(actor.fields, [{ name: 'a', value: 'b' }]);
  });
});

describe('keyOrActorSchema', () => {
  it('reads GoToSocial’s key stub at /main-key as a key owned by the actor', () => {
    const r = keyOrActorSchema.parse(fixture('actors/gotosocial-key.json'));
    assert.equal(r.kind, 'key');
    assert.ok(r.kind === 'key');
    assert.equal(r.key.id, `${G}/main-key`);
    assert.equal(r.key.owner, G);
    assertRsa2048(r.key.publicKeyPem, 'gotosocial-key');
    // The stub carries the same key as the full actor.
    assert.equal(r.key.publicKeyPem, parseActor(fixture('actors/gotosocial.json')).publicKey?.publicKeyPem);
  });

  it('reads a bare Key document with owner (Misskey /publickey)', () => {
    const pem = (fixture('actors/misskey.json').publicKey as Doc).publicKeyPem;
    const r = keyOrActorSchema.parse({ '@context': ['https://w3id.org/security/v1'], id: `${MK}/publickey`, type: 'Key', owner: MK, publicKeyPem: pem });
    assert.deepEqual(r, { kind: 'key', key: { id: `${MK}/publickey`, owner: MK, publicKeyPem: pem } });
  });

  it('reads an actor served at its keyId (Mastodon #main-key) as an actor', () => {
    const r = keyOrActorSchema.parse(fixture('actors/mastodon.json'));
    assert.equal(r.kind, 'actor');
    assert.ok(r.kind === 'actor');
    assert.equal(r.actor.publicKey?.id, `${M}#main-key`);
  });

  it('refuses a stub whose key belongs to someone else, a Note, and documents with no key at all', () => {
    const stub = fixture('actors/gotosocial-key.json');
    const bad = [
      { ...stub, publicKey: { ...(stub.publicKey as Doc), owner: 'https://evil.example/users/x' } },
      { ...stub, type: 'Note' },
      { ...stub, publicKey: undefined },
      { id: 'https://x.example/k', owner: 'javascript:alert(1)', publicKeyPem: 'pem' },
      null,
      'https://gts.example/users/birch/main-key',
    ];
    for (const doc of bad) assert.equal(keyOrActorSchema.safeParse(doc).success, false, JSON.stringify(doc)?.slice(0, 60));
  });
});

const activityExpectations: Record<string, Partial<ActivityDoc>> = {
  'mastodon-follow': { type: 'Follow', actor: M, object: STOA, objectId: STOA, objectType: null, to: [], cc: [] },
  'misskey-follow': { type: 'Follow', actor: MK, objectId: STOA, objectType: null },
  'lemmy-follow': { type: 'Follow', actor: LP, objectId: LG, objectType: null, to: [LG] },
  'gotosocial-accept': { type: 'Accept', actor: G, objectId: 'https://stoa.example/follows/7241896355120586752', objectType: 'Follow', to: [STOA] },
  'akkoma-undo-follow': {
    type: 'Undo',
    actor: A,
    objectId: 'https://akkoma.example/activities/3d6c1a9e-2b7f-4e05-8a4d-9c1b2e3f4a5d',
    objectType: 'Follow',
    to: [STOA, A],
    cc: [],
  },
  'mastodon-delete-actor': { type: 'Delete', actor: M, object: M, objectId: M, objectType: null, to: [PUBLIC] },
  'mastodon-update-person': { type: 'Update', actor: M, objectId: M, objectType: 'Person', to: [PUBLIC] },
  'misskey-block': { type: 'Block', actor: MK, objectId: STOA, objectType: null },
  'pleroma-reject': { type: 'Reject', actor: P, objectId: 'https://stoa.example/follows/7241896355120586999', objectType: 'Follow', to: [STOA] },
  // Posts and interactions (their Notes are read by note-schema: test/federation/real-servers.test.ts).
  'mastodon-create-note': {
    type: 'Create',
    actor: M,
    objectId: `${M}/statuses/112233445566778899`,
    objectType: 'Note',
    to: [PUBLIC],
    cc: [`${M}/followers`, STOA],
  },
  'mastodon-create-question': { type: 'Create', actor: M, objectId: `${M}/statuses/112233445566779001`, objectType: 'Question', to: [PUBLIC] },
  'mastodon-announce': { type: 'Announce', actor: M, object: STOA_POST, objectId: STOA_POST, objectType: null, to: [PUBLIC], cc: [STOA, `${M}/followers`] },
  'mastodon-like': { type: 'Like', actor: M, objectId: STOA_POST, objectType: null, to: [], cc: [] },
  'misskey-create-note': {
    type: 'Create',
    actor: MK,
    objectId: 'https://misskey.example/notes/9t2a3b4c5d',
    objectType: 'Note',
    to: [PUBLIC],
    cc: [`${MK}/followers`, STOA],
  },
  'misskey-like-reaction': { type: 'Like', actor: MK, objectId: STOA_POST, objectType: null },
  'akkoma-emoji-react': { type: 'EmojiReact', actor: A, objectId: STOA_POST, to: [`${A}/followers`, STOA], cc: [PUBLIC] },
  'akkoma-emoji-react-custom': { type: 'EmojiReact', actor: A, objectId: STOA_POST },
  'gotosocial-create-note': {
    type: 'Create',
    actor: G,
    objectId: `${G}/statuses/01HXZ4K2M8N6P4R2T0V8X6Z4B2`,
    objectType: 'Note',
    to: [PUBLIC],
    cc: [`${G}/followers`, STOA],
  },
};

describe('activitySchema', () => {
  it('has expectations for every activity fixture', () => {
    assert.deepEqual(fixtureNames('activities'), Object.keys(activityExpectations).sort());
  });

  for (const [name, expected] of Object.entries(activityExpectations)) {
    it(`parses ${name} with its actor, object id and object type`, () => {
      const doc = fixture(`activities/${name}.json`);
      const activity = activitySchema.parse(doc);
      assert.equal(activity.id, doc.id);
      assertFields(activity, expected, name);
    });
  }

  it('keeps an embedded object raw, so an accepted Follow can be matched by its actor and object', () => {
    const accept = activitySchema.parse(fixture('activities/gotosocial-accept.json'));
    assert.deepEqual(accept.object, { actor: STOA, id: 'https://stoa.example/follows/7241896355120586752', object: G, type: 'Follow' });
    const follow = activitySchema.parse(accept.object);
    assertFields(follow, { type: 'Follow', actor: STOA, objectId: G }, 'embedded follow');
  });

  it('exposes the Person of an actor Update for actorSchema, with its memorial flag and new key', () => {
    const update = activitySchema.parse(fixture('activities/mastodon-update-person.json'));
    const person = parseActor(update.object);
    assertFields(person, { id: M, memorial: true, discoverable: false, name: 'Alder (in memoriam)' }, 'updated person');
    assertRsa2048(person.publicKey!.publicKeyPem, 'updated key');
    assert.notEqual(person.publicKey!.publicKeyPem, parseActor(fixture('actors/mastodon.json')).publicKey!.publicKeyPem);
  });

  it('reads an actor given as an object, an object given as an array, and compact Public addressing', () => {
    const a = activitySchema.parse({
      id: 'https://x.example/a/1',
      type: ['Follow'],
      actor: { type: 'Person', id: 'https://x.example/users/a' },
      object: [{ id: 'https://y.example/users/b', type: 'Person' }, 'https://ignored.example'],
      target: { id: 'https://y.example/collections/c' },
      to: 'as:Public',
      cc: ['Public', 'https://x.example/users/a/followers', 'not a url', 12, { id: 'https://z.example/u' }],
    });
    assertFields(
      a,
      {
        type: 'Follow',
        actor: 'https://x.example/users/a',
        objectId: 'https://y.example/users/b',
        objectType: 'Person',
        target: 'https://y.example/collections/c',
        to: [PUBLIC],
        cc: [PUBLIC, 'https://x.example/users/a/followers', 'https://z.example/u'],
      },
      'shapes',
    );
  });

  it('rejects activities without id, type or actor, or with non-http ids', () => {
    const base = fixture('activities/mastodon-follow.json');
    const bad: unknown[] = [
      { ...base, id: undefined },
      { ...base, type: undefined },
      { ...base, type: 7 },
      { ...base, actor: undefined },
      { ...base, actor: 'javascript:alert(1)' },
      { ...base, actor: { type: 'Person' } },
      { ...base, id: 'urn:uuid:5e0b7c2a' },
      null,
      [],
    ];
    for (const doc of bad) assert.equal(activitySchema.safeParse(doc).success, false, JSON.stringify(doc)?.slice(0, 80));
  });

  it('keeps a non-URL object string raw but gives it no objectId', () => {
    const a = activitySchema.parse({ ...fixture('activities/mastodon-follow.json'), object: 'acct:sol@stoa.example' });
    assert.equal(a.object, 'acct:sol@stoa.example');
    assert.equal(a.objectId, null);
  });
});

describe('webFingerSchema and actorLink', () => {
  it('finds the actor in Mastodon’s JRD', () => {
    const doc = webFingerSchema.parse(fixture('webfinger/mastodon.json'));
    assert.equal(doc.subject, 'acct:alder@mastodon.example');
    assert.deepEqual(doc.aliases, ['https://mastodon.example/@alder', M]);
    assert.equal(doc.links.length, 4);
    assert.deepEqual(doc.links[2], { rel: 'http://ostatus.org/schema/1.0/subscribe', template: 'https://mastodon.example/authorize_interaction?uri={uri}' });
    assert.equal(actorLink(doc), M);
  });

  it('finds the actor in Misskey’s JRD, which has no aliases', () => {
    const doc = webFingerSchema.parse(fixture('webfinger/misskey.json'));
    assert.deepEqual(doc.aliases, []);
    assert.equal(actorLink(doc), MK);
  });

  it('resolves a handle domain to an actor on another host (split domain)', () => {
    const doc = webFingerSchema.parse(fixture('webfinger/split-domain.json'));
    assert.equal(doc.subject, 'acct:wren@example.org');
    assert.equal(actorLink(doc), 'https://social.example.org/users/wren');
  });

  it('accepts application/ld+json with the ActivityStreams profile as the actor link', () => {
    const raw = fixture('webfinger/split-domain.json');
    const onlyLd = (raw.links as Doc[]).filter((l) => l.type !== 'application/activity+json');
    const doc = webFingerSchema.parse({ ...raw, links: onlyLd });
    assert.equal(
      doc.links.some((l) => l.type === 'application/activity+json'),
      false,
    );
    assert.equal(actorLink(doc), 'https://social.example.org/users/wren');
    const spaced = webFingerSchema.parse({
      subject: 'acct:a@b.example',
      links: [{ rel: 'self', type: 'Application/LD+JSON ;profile="https://www.w3.org/ns/activitystreams"', href: 'https://b.example/a' }],
    });
    assert.equal(actorLink(spaced), 'https://b.example/a');
  });

  it('ignores other rels, self links of other types, unusable hrefs and malformed links', () => {
    const doc = webFingerSchema.parse({
      subject: 'acct:a@b.example',
      aliases: ['https://b.example/@a', 5],
      links: [
        { rel: 'self', type: 'text/html', href: 'https://b.example/@a' },
        { rel: 'alternate', type: 'application/activity+json', href: 'https://b.example/alternate' },
        { rel: 'self', type: 'application/activity+json', href: 'javascript:alert(1)' },
        { rel: 'self', href: 'https://b.example/untyped' },
        { type: 'application/activity+json', href: 'https://b.example/no-rel' },
        42,
        null,
      ],
    });
    assert.deepEqual(doc.aliases, ['https://b.example/@a']);
    assert.equal(doc.links.length, 4);
    assert.equal(actorLink(doc), undefined);
  });

  it('rejects a JRD without subject', () => {
    const { subject: _s, ...doc } = fixture('webfinger/mastodon.json');
    assert.equal(webFingerSchema.safeParse(doc).success, false);
    assert.equal(webFingerSchema.safeParse('acct:alder@mastodon.example').success, false);
  });
});

describe('orderedCollectionSchema', () => {
  it('reads the count and first page of a Mastodon followers collection', () => {
    const c = orderedCollectionSchema.parse({
      '@context': 'https://www.w3.org/ns/activitystreams',
      id: `${M}/followers`,
      type: 'OrderedCollection',
      totalItems: 481,
      first: `${M}/followers?page=1`,
    });
    assert.deepEqual(c, { id: `${M}/followers`, totalItems: 481, first: `${M}/followers?page=1` });
  });

  it('keeps an embedded first page (Akkoma) and a missing count (hidden followers) as null', () => {
    const page = { id: `${A}/followers?page=1`, type: 'OrderedCollectionPage', orderedItems: [], partOf: `${A}/followers`, totalItems: 0 };
    assert.deepEqual(orderedCollectionSchema.parse({ id: `${A}/followers`, type: 'OrderedCollection', first: page }), {
      id: `${A}/followers`,
      totalItems: null,
      first: page,
    });
  });

  it('reads a Lemmy Collection with a count and no pages', () => {
    assert.deepEqual(orderedCollectionSchema.parse({ id: `${LG}/followers`, type: 'Collection', totalItems: 3 }), {
      id: `${LG}/followers`,
      totalItems: 3,
      first: null,
    });
  });

  it('nulls nonsense counts and refuses documents that are not collections', () => {
    for (const totalItems of [-1, 1.5, '12', Number.MAX_VALUE]) {
      assert.equal(orderedCollectionSchema.parse({ type: 'OrderedCollection', totalItems }).totalItems, null, String(totalItems));
    }
    assert.equal(orderedCollectionSchema.safeParse(fixture('actors/mastodon.json')).success, false);
    assert.equal(orderedCollectionSchema.safeParse([]).success, false);
  });
});

describe('idOf', () => {
  it('reads a string, an object with id and the first item of an array', () => {
    assert.equal(idOf('https://a.example/1'), 'https://a.example/1');
    assert.equal(idOf({ id: 'https://a.example/2', type: 'Note' }), 'https://a.example/2');
    assert.equal(idOf(['https://a.example/3', 'https://a.example/4']), 'https://a.example/3');
    assert.equal(idOf([{ id: 'https://a.example/5' }]), 'https://a.example/5');
  });

  it('returns null for anything else', () => {
    for (const x of [null, undefined, 5, {}, { id: 5 }, [], [[['https://deep.example']]]]) assert.equal(idOf(x), null, JSON.stringify(x));
  });
});
