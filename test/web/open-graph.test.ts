// A post's description for link previewers, as Mastodon's status_description writes it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openGraphHead, statusDescription } from '../../src/web/open-graph.js';

describe('OpenGraph head', () => {
  it('describes a post as Mastodon does: what is attached, the content warning, else the text', () => {
    assert.equal(statusDescription({ text: 'Just words', spoilerText: '', mediaTypes: [] }), 'Just words');
    assert.equal(
      statusDescription({ text: 'Look', spoilerText: '', mediaTypes: ['image', 'gifv', 'image', 'audio', 'unknown'] }),
      'Attached: 2 images · 1 video · 1 audio\n\nLook',
    );
    // A content warning hides the text, as it hides it on the page.
    assert.equal(statusDescription({ text: 'the spoiler', spoilerText: 'plot', mediaTypes: ['video'] }), 'Attached: 1 video · Content warning: plot');
  });

  it('escapes every value and cuts a long description', () => {
    const head = openGraphHead({
      title: '"><script>x</script>',
      description: 'y'.repeat(400),
      url: 'https://example.test/@a/1?x="',
      type: 'article',
      siteName: 'S & S',
      alternates: [{ type: 'application/activity+json', href: 'https://example.test/users/a/statuses/1' }],
    }).value;
    assert.ok(!head.includes('<script>'));
    assert.ok(head.includes('content="&quot;&gt;&lt;script&gt;x&lt;/script&gt;"'));
    assert.ok(head.includes(`content="${'y'.repeat(299)}…"`));
    assert.ok(head.includes('<meta property="og:site_name" content="S &amp; S">'));
    assert.ok(head.includes('<meta name="twitter:card" content="summary">'));
    assert.ok(!head.includes('og:image'));
  });
});
