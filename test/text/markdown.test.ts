// Markdown → HTML for community posts and comments (src/text/markdown.ts): what markdown means is kept, and nothing a
// member types becomes active markup: raw HTML stays text, script and javascript: links never appear, and the output
// is always what the sanitizer itself writes (a fixed point of sanitize-html.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { markdownHtml } from '../../src/text/markdown.js';
import { sanitizeHtml } from '../../src/text/sanitize-html.js';

const REL = 'rel="nofollow noopener noreferrer" target="_blank"';

describe('markdownHtml', () => {
  it('renders markdown as Mastodon’s strict markup, a line break after each block (as Lemmy’s own content)', () => {
    assert.equal(markdownHtml('A **bold** and _soft_ claim'), '<p>A <strong>bold</strong> and <em>soft</em> claim</p>\n');
    assert.equal(markdownHtml('# Title\n\ntext'), '<p><strong>Title</strong></p>\n<p>text</p>\n');
    assert.equal(markdownHtml('- one\n- two'), '<ul>\n<li>one</li>\n<li>two</li>\n</ul>\n');
    assert.equal(markdownHtml('> quoted'), '<blockquote>\n<p>quoted</p>\n</blockquote>\n');
    assert.equal(markdownHtml('`x < y`'), '<p><code>x &lt; y</code></p>\n');
    assert.equal(markdownHtml('[Lemmy](https://join-lemmy.org)'), `<p><a href="https://join-lemmy.org" ${REL}>Lemmy</a></p>\n`);
    assert.equal(markdownHtml('see https://example.com/a'), `<p>see <a href="https://example.com/a" ${REL}>https://example.com/a</a></p>\n`);
    assert.equal(markdownHtml('![a cat](https://example.com/cat.png)'), `<p><a href="https://example.com/cat.png" ${REL}>a cat</a></p>\n`);
    assert.equal(markdownHtml('   '), '');
  });

  it('keeps raw HTML, scripts and javascript: links inert', () => {
    assert.equal(markdownHtml('<script>alert(1)</script>'), '<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>\n');
    assert.equal(markdownHtml('<b onclick="x()">hi</b>'), '<p>&lt;b onclick=&quot;x()&quot;&gt;hi&lt;/b&gt;</p>\n');
    assert.equal(markdownHtml('[click](javascript:alert(1))'), '<p>[click](javascript:alert(1))</p>\n');
    assert.equal(markdownHtml('[click](JaVaScRiPt:alert(1))'), '<p>[click](JaVaScRiPt:alert(1))</p>\n');
    assert.doesNotMatch(markdownHtml('![x](javascript:alert(1))'), /href/);
    assert.doesNotMatch(markdownHtml('[x](data:text/html;base64,PHNjcmlwdD4=)'), /href/);
    assert.doesNotMatch(markdownHtml('<img src=x onerror=alert(1)>'), /<img/);
  });

  it('always writes what the sanitizer writes, never an active element or scheme (property)', () => {
    const pieces = fc.constantFrom(
      '<script>',
      '</script>',
      '<img src=x onerror=alert(1)>',
      '[a](javascript:alert(1))',
      '[a](https://example.com/"onmouseover="x)',
      '![i](https://example.com/i.png "t")',
      '**',
      '_',
      '`',
      '```\n',
      '# ',
      '> ',
      '- ',
      '1. ',
      '\n',
      '\n\n',
      '<a href="javascript:x">',
      '&amp;',
      '&#x6a;avascript:',
      'https://example.com/?a=<b>',
      '<!--',
      '-->',
      '|a|b|\n|-|-|\n',
      '<iframe src=x>',
      '<svg onload=x>',
    );
    const text = fc.array(fc.oneof(pieces, fc.string({ maxLength: 12 })), { maxLength: 25 }).map((parts) => parts.join(''));
    fc.assert(
      fc.property(text, (md) => {
        const html = markdownHtml(md);
        assert.equal(sanitizeHtml(html), html, 'a fixed point of the sanitizer');
        assert.doesNotMatch(html, /<(?:script|img|iframe|svg|style|object)\b/i);
        assert.doesNotMatch(html, /<[^>]*\son[a-z]+\s*=/i);
        assert.doesNotMatch(html, /href="\s*(?:javascript|data|vbscript):/i);
      }),
      { seed: 37, numRuns: 400 },
    );
  });
});
