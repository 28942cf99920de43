// A community's Page and Note as note-schema.ts and page-parts.ts read them: Lemmy 0.19's fixtures (the link as a
// Link attachment, markdown source, audience), the older and other servers' forms (the link as `url`), the Group's
// community fields, and a property over random shapes: nothing throws, a title is never blank nor over Lemmy's 200.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { actorSchema } from '../../src/federation/as2.js';
import { pieceFrom } from '../../src/federation/community-inbox.js';
import { MAX_TITLE, postBody, postHtml, postTitle } from '../../src/federation/page-parts.js';
import { lemmyFixture } from '../support/lemmy-fixtures.js';

const ORIGIN = 'https://lemmy.example';
const fixture = (path: string) => lemmyFixture(path, ORIGIN, { community: 'main' });

describe('community Pages and Notes, as parsed', () => {
  it("reads Lemmy 0.19's Page: title, Link attachment, markdown source, audience", () => {
    const p = pieceFrom(fixture('objects/page.json'))!;
    assert.equal(p.type, 'Page');
    assert.equal(p.note.name, 'Post title');
    assert.equal(p.note.link, `${ORIGIN}/pictrs/image/eOtYb9iEiB.png`);
    assert.equal(p.note.markdown, 'This is a post in the /c/tenforward community');
    assert.equal(p.note.audience, `${ORIGIN}/users/main`);
    assert.equal(postTitle(p.note), 'Post title');
    assert.equal(postBody(p.note), 'This is a post in the /c/tenforward community');
    assert.equal(
      postHtml(p.note),
      `<p><strong>Post title</strong></p><p><a href="${ORIGIN}/pictrs/image/eOtYb9iEiB.png" rel="nofollow noopener noreferrer" target="_blank">${ORIGIN}/pictrs/image/eOtYb9iEiB.png</a></p><p>This is a post in the /c/tenforward community</p>\n`,
    );
    assert.deepEqual(p.note.attachments, [], 'a Link attachment is the post’s link, not media');
    assert.equal(p.note.language, 'fr', 'Lemmy’s language identifier');
    assert.equal(pieceFrom({ ...fixture('objects/page.json'), language: { identifier: 'und', name: 'Undetermined' } })!.note.language, null);
  });

  it("reads Lemmy's Note: a comment in reply, with its markdown", () => {
    const n = pieceFrom(fixture('objects/note.json'))!;
    assert.equal(n.type, 'Note');
    assert.equal(n.note.inReplyTo, `${ORIGIN}/post/55143`);
    assert.equal(n.note.markdown, 'first comment!');
    assert.equal(n.note.link, null);
  });

  it('reads the link from `url` (older Lemmy, Mbin), but not a Page’s own address; the body from HTML without source', () => {
    const page = fixture('objects/page.json');
    const { attachment: _a, source: _s, ...bare } = page;
    assert.equal(pieceFrom({ ...bare, url: 'https://example.org/a' })!.note.link, 'https://example.org/a');
    assert.equal(pieceFrom({ ...bare, url: { type: 'Link', href: 'https://example.org/b' } })!.note.link, 'https://example.org/b');
    assert.equal(pieceFrom({ ...bare, url: page.id })!.note.link, null);
    assert.equal(pieceFrom({ ...bare, type: 'Note', url: 'https://example.org/c' })!.note.link, null, 'a Note’s url is its page');
    const html = pieceFrom({ ...bare, content: '<p>one &amp; two</p><p>three</p>' })!.note;
    assert.equal(html.markdown, null);
    assert.equal(postBody(html), 'one & two\nthree');
    const untitled = pieceFrom({ ...bare, name: '   ', content: '<p>first line</p><p>second</p>' })!.note;
    assert.equal(postTitle(untitled), 'first line');
    assert.equal(pieceFrom({ ...bare, sensitive: true })!.note.sensitive, true);
  });

  it("reads the Group's community fields: moderators (attributedTo), posting restriction, NSFW", () => {
    const g = actorSchema.parse(fixture('objects/group.json'));
    assert.deepEqual(g.community, { moderators: `${ORIGIN}/users/main/moderators`, postingRestrictedToMods: false, sensitive: false });
    const nsfw = actorSchema.parse({ ...fixture('objects/group.json'), sensitive: true, postingRestrictedToMods: true, attributedTo: undefined });
    assert.deepEqual(nsfw.community, { moderators: null, postingRestrictedToMods: true, sensitive: true });
    assert.equal(actorSchema.parse(fixture('objects/person.json')).community, null);
  });

  it('never throws on any Page or Note shape; a title is never blank nor longer than Lemmy allows', () => {
    const link = fc.oneof(
      fc.constant(undefined),
      fc.webUrl(),
      fc.record({ type: fc.constantFrom('Link', 'Image', 'Document'), href: fc.oneof(fc.webUrl(), fc.string()) }),
      fc.array(fc.oneof(fc.webUrl(), fc.record({ type: fc.constant('Link'), href: fc.webUrl() }), fc.anything()), { maxLength: 3 }),
      fc.anything(),
    );
    fc.assert(
      fc.property(
        fc.record(
          {
            type: fc.constantFrom('Page', 'Note', 'Article', 'Question', ['Page', 'x'], 'Group', 7),
            name: fc.oneof(fc.string({ maxLength: 400 }), fc.string({ unit: 'grapheme', maxLength: 260 }), fc.anything()),
            content: fc.oneof(fc.string({ maxLength: 300 }), fc.anything()),
            source: fc.oneof(fc.record({ content: fc.anything(), mediaType: fc.constantFrom('text/markdown', 'text/html') }), fc.anything()),
            attachment: link,
            url: link,
            sensitive: fc.anything(),
            audience: fc.oneof(fc.webUrl(), fc.anything()),
            inReplyTo: fc.oneof(fc.webUrl(), fc.anything()),
            published: fc.oneof(
              fc.date().map((d) => (Number.isNaN(d.getTime()) ? 'x' : d.toISOString())),
              fc.anything(),
            ),
          },
          { requiredKeys: [] },
        ),
        (raw) => {
          const doc = { id: `${ORIGIN}/post/1`, attributedTo: `${ORIGIN}/users/a`, ...raw };
          const p = pieceFrom(doc);
          if (!p) return;
          const title = postTitle(p.note);
          assert.ok(title.trim().length > 0);
          assert.ok([...title].length <= MAX_TITLE);
          assert.equal(typeof postHtml(p.note), 'string');
          assert.equal(typeof postBody(p.note), 'string');
          if (p.note.link !== null) assert.match(p.note.link, /^https?:\/\//);
          if (p.note.audience !== null) assert.match(p.note.audience, /^https?:\/\//);
        },
      ),
      { seed: 37, numRuns: 400 },
    );
  });
});
