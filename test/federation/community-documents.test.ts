// Our community documents (src/federation/community-documents.ts) against Lemmy 0.19's own (test/fixtures/lemmy,
// copied verbatim from crates/apub/assets/lemmy of Lemmy 0.19.20): every property Lemmy writes we write too, as the
// same kind of value (an id, a list, an object), with the few exceptions named here; and what we add beyond Lemmy's is
// named too, so that a property appearing or vanishing is a decision.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import {
  commentDocument,
  communityDeleteActivity,
  createOrUpdateActivity,
  LEMMY_CONTEXT,
  pageDocument,
  undoVoteActivity,
  voteActivity,
} from '../../src/federation/community-documents.js';
import type { Status } from '../../src/store/statuses.js';

type Doc = Record<string, unknown>;

const fixture = async (path: string): Promise<Doc> =>
  JSON.parse(await readFile(new URL(`../../../test/fixtures/lemmy/${path}`, import.meta.url), 'utf8')) as Doc;

const kind = (v: unknown): string => (Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v);

/**
 * Lemmy's properties are all ours, as the same kind of value, but `missing` (what we do not send); ours are all
 * Lemmy's, but `extra` (what we send beyond it).
 */
function sameShape(ours: Doc, lemmy: Doc, missing: readonly string[], extra: readonly string[], where = ''): void {
  for (const [k, v] of Object.entries(lemmy)) {
    if (missing.includes(k)) {
      assert.ok(!(k in ours), `${where}${k} is not sent`);
      continue;
    }
    assert.ok(k in ours, `${where}${k} is sent, as Lemmy sends it`);
    if (k !== '@context') assert.equal(kind(ours[k]), kind(v), `${where}${k} is a ${kind(v)}`);
  }
  for (const k of Object.keys(ours)) assert.ok(k in lemmy || extra.includes(k), `${where}${k} is Lemmy's or named as ours`);
}

const ALICE = 'https://stoa.example/users/alice';
const BOB = 'https://stoa.example/users/bob';
const GROUP = 'https://lemmy.example/c/tenforward';
const PAGE_ID = 'https://stoa.example/users/alice/statuses/1';

function status(content: string, edited = false): Status {
  return {
    content,
    sensitive: false,
    createdAt: new Date('2026-12-01T10:00:00.123Z'),
    editedAt: edited ? new Date('2026-12-01T11:00:00.456Z') : null,
  } as Status;
}

const page = (edited = false, url: string | null = 'https://example.com/a.png') =>
  pageDocument({ status: status('<p>test body</p>\n', edited), id: PAGE_ID, actor: ALICE, group: GROUP, name: 'test post', url, source: 'test body' });

const note = () =>
  commentDocument({
    status: status('<p>hello</p>\n'),
    id: 'https://stoa.example/users/bob/statuses/2',
    actor: BOB,
    group: GROUP,
    inReplyTo: PAGE_ID,
    parentAuthor: { id: ALICE, handle: '@alice@stoa.example' },
    source: 'hello',
  });

describe('community documents, shaped as Lemmy 0.19’s', () => {
  it('a post is objects/page.json (without Lemmy’s image and language; with url and cc for other servers)', async () => {
    const ours = page();
    sameShape(ours, await fixture('objects/page.json'), ['image', 'language'], ['url', 'cc']);
    assert.equal(ours['type'], 'Page');
    assert.deepEqual(ours['to'], [GROUP, 'https://www.w3.org/ns/activitystreams#Public']);
    assert.deepEqual(ours['cc'], []);
    assert.equal(ours['audience'], GROUP);
    assert.deepEqual(ours['attachment'], [{ type: 'Link', href: 'https://example.com/a.png' }]);
    assert.equal(ours['url'], 'https://example.com/a.png');
    assert.deepEqual(ours['source'], { content: 'test body', mediaType: 'text/markdown' });
    assert.equal(ours['mediaType'], 'text/html');
    assert.equal(ours['published'], '2026-12-01T10:00:00.123Z');
    // A post without a link: no attachment, no url.
    const bare = page(false, null);
    assert.deepEqual(bare['attachment'], []);
    assert.ok(!('url' in bare));
  });

  it('a comment is objects/note.json (without language)', async () => {
    const ours = note();
    sameShape(ours, await fixture('objects/note.json'), ['language', 'updated'], []);
    assert.deepEqual(ours['to'], ['https://www.w3.org/ns/activitystreams#Public']);
    assert.deepEqual(ours['cc'], [GROUP, ALICE]);
    assert.deepEqual(ours['tag'], [{ type: 'Mention', href: ALICE, name: '@alice@stoa.example' }]);
    assert.equal(ours['inReplyTo'], PAGE_ID);
  });

  it('Create and Update are create_page.json, create_note.json and update_page.json', async () => {
    const createPage = createOrUpdateActivity('Create', page(), ALICE, GROUP);
    const lemmyCreatePage = await fixture('activities/create_or_update/create_page.json');
    sameShape(createPage, lemmyCreatePage, [], ['@context']);
    sameShape(createPage['object'] as Doc, lemmyCreatePage['object'] as Doc, ['language'], ['url', 'cc'], 'object.');
    assert.deepEqual(createPage['@context'], LEMMY_CONTEXT);
    assert.deepEqual(createPage['to'], ['https://www.w3.org/ns/activitystreams#Public']);
    assert.deepEqual(createPage['cc'], [GROUP]);

    const createNote = createOrUpdateActivity('Create', note(), BOB, GROUP);
    const lemmyCreateNote = await fixture('activities/create_or_update/create_note.json');
    sameShape(createNote, lemmyCreateNote, [], ['@context']);
    sameShape(createNote['object'] as Doc, lemmyCreateNote['object'] as Doc, [], ['tag', 'distinguished'], 'object.');
    assert.deepEqual(createNote['cc'], [GROUP, ALICE]);

    const update = createOrUpdateActivity('Update', page(true), ALICE, GROUP);
    const lemmyUpdate = await fixture('activities/create_or_update/update_page.json');
    sameShape(update, lemmyUpdate, [], ['@context']);
    sameShape(update['object'] as Doc, lemmyUpdate['object'] as Doc, [], ['url', 'cc'], 'object.');
    assert.equal((update['object'] as Doc)['updated'], '2026-12-01T11:00:00.456Z');
    assert.notEqual(update.id, createPage.id);
  });

  it('votes are like_note.json and dislike_page.json; their Undo undo_like_note.json', async () => {
    const like = voteActivity(`${ALICE}#votes/1-a`, 'Like', ALICE, PAGE_ID, GROUP);
    sameShape(like, await fixture('activities/voting/like_note.json'), [], ['@context']);
    const dislike = voteActivity(`${ALICE}#votes/1-b`, 'Dislike', ALICE, PAGE_ID, GROUP);
    sameShape(dislike, await fixture('activities/voting/dislike_page.json'), [], ['@context']);
    const undo = undoVoteActivity(like);
    const lemmyUndo = await fixture('activities/voting/undo_like_note.json');
    sameShape(undo, lemmyUndo, [], ['@context']);
    sameShape(undo['object'] as Doc, lemmyUndo['object'] as Doc, [], [], 'object.');
    assert.deepEqual(undo['object'], { id: like.id, type: 'Like', actor: ALICE, object: PAGE_ID, audience: GROUP });
  });

  it('a Delete is delete_page.json: Public in `to`, the object by id', async () => {
    const del = communityDeleteActivity(PAGE_ID, ALICE, GROUP, []);
    sameShape(del, await fixture('activities/deletion/delete_page.json'), [], ['@context']);
    assert.deepEqual(del['to'], ['https://www.w3.org/ns/activitystreams#Public']);
    assert.deepEqual(del['cc'], [GROUP]);
    assert.equal(del['object'], PAGE_ID);
  });
});
