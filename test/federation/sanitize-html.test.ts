// Remote HTML reduced to Mastodon's allowed markup: active elements gone with their contents, event handlers and
// other attributes gone, links only with Mastodon's schemes however the scheme is disguised (entities, tabs,
// controls, case), HTML's own rules for comments, CDATA, quoted '>' and unclosed tags, Mastodon's classes, and
// Mastodon's own HTML kept as it is. Every output is also checked by an independent reader (support/mastodon-html).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sanitizeHtml } from '../../src/text/sanitize-html.js';
import { assertMastodonHtml } from '../support/mastodon-html.js';

const ATTRS = 'rel="nofollow noopener noreferrer" target="_blank"';
const link = (href: string, text: string, extra = '') => `<a href="${href}"${extra} ${ATTRS}>${text}</a>`;

/** The sanitizer's output, checked by the independent reader first; every link it writes has our rel and target. */
function clean(html: string): string {
  const out = sanitizeHtml(html);
  assertMastodonHtml(out, JSON.stringify(html));
  for (const [tag] of out.matchAll(/<a [^>]*>/g)) assert.ok(tag.endsWith(` ${ATTRS}>`), `${tag} in ${out}`);
  return out;
}

function expectAll(cases: readonly (readonly [string, string])[]): void {
  for (const [input, expected] of cases) assert.equal(clean(input), expected, input);
}

describe('sanitizeHtml', () => {
  it('drops script, style, iframe, object, svg, math, template and noscript with everything inside them', () => {
    expectAll([
      ['a<script>alert(1)</script>b', 'ab'],
      ['a<SCRIPT type="text/javascript">alert(1)</SCRIPT >b', 'ab'],
      ['a<ScRiPt>x = "</b><p>still script"; </sCrIpT>b', 'ab'],
      ['a<style>body { background: url(javascript:alert(1)) }</style>b', 'ab'],
      ['a<iframe src="https://evil.example"><p>fallback</p></iframe>b', 'ab'],
      ['a<object data="evil.swf"><param name="x"><p>fallback</p></object>b', 'ab'],
      ['a<object><object></object><p>still inside</p></object>b', 'ab'],
      ['a<svg><script>alert(1)</script><a href="https://x.example">in svg</a></svg>b', 'ab'],
      ['a<svg/>b', 'ab'],
      ['a<svg><svg/><p>inner</p></svg>b', 'ab'],
      ['a<math><mi xlink:href="javascript:alert(1)">x</mi></math>b', 'ab'],
      ['a<template><p>t</p></template>b', 'ab'],
      ['a<noscript><p>n</p></noscript>b', 'ab'],
      ['a<xmp><p>x</p></xmp><noembed>e</noembed><noframes>f</noframes>b', 'ab'],
      // Unclosed, they take the rest with them.
      ['a<script>alert(1)', 'a'],
      ['a<svg><p>b', 'a'],
      ['a<plaintext></plaintext><p>b', 'a'],
      // textarea and title hold text, which stays (escaped).
      ['<textarea><script>alert(1)</script></textarea>', '&lt;script&gt;alert(1)&lt;/script&gt;'],
      ['<title>a <b>b</b></title>', 'a &lt;b&gt;b&lt;/b&gt;'],
    ]);
  });

  it('drops every attribute but the few allowed: event handlers, style, src, in any case', () => {
    expectAll([
      ['<img src=x onerror=alert(1)>after', 'after'],
      ['<IMG SRC=x ONERROR="alert(1)">after', 'after'],
      ['<p onclick="alert(1)" style="color:red" id="x" title="t">p</p>', '<p>p</p>'],
      ['<P OnMouseOver=alert(1) CLASS="invisible">p</P>', '<p class="invisible">p</p>'],
      ['<a href="https://ok.example/" onclick="alert(1)" style="x" title="t" id="i">l</a>', link('https://ok.example/', 'l')],
      ['<span/onmouseover=alert(1)>s</span>', '<span>s</span>'],
      ['<b onclick=alert(1)/>b</b>', '<b>b</b>'],
      ['<body onload=alert(1)><div onclick=x>d</div></body>', 'd'],
      ['<span translate="no" data-x="1">a</span><span translate="yes">b</span>', '<span translate="no">a</span><span>b</span>'],
      ['<p lang="de-CH">p</p><p lang="&quot;><script>">q</p>', '<p lang="de-CH">p</p><p>q</p>'],
    ]);
  });

  it('keeps a link only with a scheme Mastodon links, however javascript:, data: or vbscript: is disguised', () => {
    const refused = [
      'javascript:alert(1)',
      'JAVASCRIPT:alert(1)',
      ' javascript:alert(1)',
      'data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==',
      'vbscript:msgbox(1)',
      '&#106;avascript:alert(1)',
      '&#x6A;avascript:alert(1)',
      '&#0000106&#0000097vascript:alert(1)',
      'jav&#x09;ascript:alert(1)',
      'jav&#x0A;ascript:alert(1)',
      'jav&#x0D;ascript:alert(1)',
      'jav\tascript:alert(1)',
      'java\nscript:alert(1)',
      '&#x01;javascript:alert(1)',
      '\u0001javascript:alert(1)',
      'javascript&colon;alert(1)',
      'jav&Tab;ascript:alert(1)',
      'jav&NewLine;ascript:alert(1)',
      'java\u0000script:alert(1)',
      'java&#0;script:alert(1)',
      '/relative/path',
      '//evil.example/x',
      '#top',
      '',
    ];
    for (const href of refused) {
      for (const quote of ['"', "'"]) {
        assert.equal(clean(`<a href=${quote}${href}${quote}>click</a>`), 'click', href);
      }
    }
    assert.equal(clean('<a href=javascript:alert(1)>click</a>'), 'click');
    assert.equal(clean('<a>no href</a>'), 'no href');
    expectAll([
      ['<a href="https://ok.example/a?b=1&amp;c=2">x</a>', link('https://ok.example/a?b=1&amp;c=2', 'x')],
      ['<a href="HTTPS://OK.example/">x</a>', link('HTTPS://OK.example/', 'x')],
      ['<a href="http&#x3a;//ok.example/">x</a>', link('http://ok.example/', 'x')],
      ['<a href=" https://ok.example/\n">x</a>', link('https://ok.example/', 'x')],
      ['<a href="gemini://capsule.example/">g</a>', link('gemini://capsule.example/', 'g')],
      ['<a href="magnet:?xt=urn:btih:abc">m</a>', link('magnet:?xt=urn:btih:abc', 'm')],
      // A quote inside the value stays inside the attribute.
      ['<a href=\'https://ok.example/"onmouseover="alert(1)\'>x</a>', link('https://ok.example/&quot;onmouseover=&quot;alert(1)', 'x')],
      // What is inside a refused link stays, as its text.
      ['<a href="javascript:x"><b>bold</b> text</a>', '<b>bold</b> text'],
    ]);
  });

  it('follows HTML for comments, CDATA, doctypes, quoted ">" and tags cut off by the end', () => {
    expectAll([
      ['a<!-- <script>alert(1)</script> -->b', 'ab'],
      ['a<!--><script>alert(1)</script>b', 'ab'],
      ['a<!--->b', 'ab'],
      ['a<!-- x --!>b', 'ab'],
      ['a<!-- never closed <p>b', 'a'],
      ['a<!DOCTYPE html>b<?xml version="1.0"?>c', 'abc'],
      ['a<![CDATA[<script>alert(1)</script>]]>b', 'aalert(1)]]&gt;b'],
      ['a</ x>b</>c', 'abc'],
      ['<a title="x>y" href="javascript:alert(1)">z</a>', 'z'],
      ['<a title=\'x>"<script>\' href="https://ok.example/">z</a>', link('https://ok.example/', 'z')],
      ['<a href="https://ok.example/" title="it\'s">z</a>', link('https://ok.example/', 'z')],
      ['a<img src=x onerror=alert(1)', 'a'],
      ['a<a href="https://ok.example/', 'a'],
      ['a<p', 'a'],
      ['a<', 'a&lt;'],
      ['a</', 'a&lt;/'],
      ['1 < 2 > 0', '1 &lt; 2 &gt; 0'],
      ['a <3 b', 'a &lt;3 b'],
    ]);
  });

  it('balances what it keeps: unclosed and stray tags', () => {
    expectAll([
      ['<p>one<p>two', '<p>one</p><p>two</p>'],
      ['<b>bold <i>both</b> after', '<b>bold <i>both</i></b> after'],
      ['</p></b>text</a>', 'text'],
      ['<a href="https://a.example/">one<a href="https://b.example/">two</a>', `${link('https://a.example/', 'one')}${link('https://b.example/', 'two')}`],
      ['<ul><li>one<li>two</ul>', '<ul><li>one</li><li>two</li></ul>'],
      ['line<br>break<br/>and<BR >more</br>', 'line<br>break<br>and<br>more<br>'],
    ]);
    const deep = clean('<b>'.repeat(20_000) + 'deep');
    assert.equal(deep, '<b>'.repeat(64) + 'deep' + '</b>'.repeat(64));
  });

  it('keeps Mastodon’s formatting and classes, and turns headings into bold paragraphs', () => {
    expectAll([
      [
        '<p><b>b</b><strong>s</strong><i>i</i><em>e</em><u>u</u><s>s</s><del>d</del><code>c</code></p>',
        '<p><b>b</b><strong>s</strong><i>i</i><em>e</em><u>u</u><s>s</s><del>d</del><code>c</code></p>',
      ],
      ['<blockquote><p>q</p></blockquote><pre><code>x &lt; y</code></pre>', '<blockquote><p>q</p></blockquote><pre><code>x &lt; y</code></pre>'],
      [
        '<ol start="3" reversed><li value="7">x</li></ol><ol start="x"><li value="one">y</li></ol>',
        '<ol start="3" reversed><li value="7">x</li></ol><ol><li>y</li></ol>',
      ],
      ['<ruby>漢<rp>(</rp><rt>kan</rt><rp>)</rp></ruby>', '<ruby>漢<rp>(</rp><rt>kan</rt><rp>)</rp></ruby>'],
      ['<h1>Title</h1><h3>Sub <em>x</em></h3>text', '<p><strong>Title</strong></p><p><strong>Sub <em>x</em></strong></p>text'],
      ['<div><table><tr><td>cell</td></tr></table><img src="x" alt="alt"></div>', 'cell'],
      ['<span class="h-card p-author e-content dt-published u-photo">a</span>', '<span class="h-card p-author e-content dt-published u-photo">a</span>'],
      ['<span class="mention hashtag ellipsis invisible quote-inline">a</span>', '<span class="mention hashtag ellipsis invisible quote-inline">a</span>'],
      ['<span class="status-link foo h-">a</span><span class="x&quot;onclick">b</span>', '<span>a</span><span>b</span>'],
      ['<b class="mention">b</b><ul class="invisible"><li>l</li></ul>', '<b>b</b><ul><li>l</li></ul>'],
      ['<a href="https://ok.example/" class="u-url mention other" rel="me" target="_self">m</a>', link('https://ok.example/', 'm', ' class="u-url mention"')],
      ['fish &amp; chips &copy; &#169; &#xA9; AT&T & more &notanentity', 'fish &amp; chips &copy; &#169; &#xA9; AT&amp;T &amp; more &amp;notanentity'],
    ]);
  });

  it('keeps a Mastodon post as Mastodon wrote it, with our rel and target on its links', () => {
    const post =
      '<p>Hello <span class="h-card" translate="no"><a href="https://mastodon.example/@bob" class="u-url mention">@<span>bob</span></a></span>, see ' +
      '<a href="https://example.com/a/very/long/path" target="_blank" rel="nofollow noopener noreferrer" translate="no"><span class="invisible">https://</span>' +
      '<span class="ellipsis">example.com/a/very/lo</span><span class="invisible">ng/path</span></a></p><p>Tagged ' +
      '<a href="https://mastodon.example/tags/Stoa" class="mention hashtag" rel="tag">#<span>Stoa</span></a></p>';
    assert.equal(
      clean(post),
      '<p>Hello <span class="h-card" translate="no">' +
        link('https://mastodon.example/@bob', '@<span>bob</span>', ' class="u-url mention"') +
        '</span>, see ' +
        link(
          'https://example.com/a/very/long/path',
          '<span class="invisible">https://</span><span class="ellipsis">example.com/a/very/lo</span><span class="invisible">ng/path</span>',
          ' translate="no"',
        ) +
        '</p><p>Tagged ' +
        link('https://mastodon.example/tags/Stoa', '#<span>Stoa</span>', ' class="mention hashtag"') +
        '</p>',
    );
  });

  it('gives only allowed markup for any mix of hostile pieces, and is idempotent', () => {
    const pieces = [
      '<script>',
      '</script>',
      '<style>',
      '</style>',
      '<svg>',
      '</svg>',
      '<svg/>',
      '<math>',
      '</math>',
      '<!--',
      '-->',
      '--!>',
      '<![CDATA[',
      ']]>',
      '<a href="javascript:alert(1)">',
      '<a href="https://ok.example/?a=1&amp;b=2">',
      '<a href=jav&#x09;ascript:x>',
      '</a>',
      '<p>',
      '</p>',
      '<b>',
      '</b>',
      '<img src=x onerror=alert(1)>',
      '<span class="h-card x">',
      '</span>',
      '"',
      "'",
      '>',
      '<',
      '&',
      '&amp;',
      '&#106;',
      '=',
      ' onclick=alert(1) ',
      '<textarea>',
      '</textarea>',
      '<h2>',
      '</h2>',
      '<li>',
      '<ul>',
      '</ul>',
      '<br/>',
      'text',
      ' ',
      '\t',
      '\u0000',
      '<A HREF="https://ok.example/" ONCLICK=x>',
      '<iframe>',
      '</iframe>',
      '<object>',
      '</object>',
      '<?',
      '<!x',
      '</ x>',
    ];
    let seed = 12345;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let round = 0; round < 3000; round++) {
      let input = '';
      for (let k = next() % 14; k >= 0; k--) input += pieces[next() % pieces.length];
      const once = clean(input);
      assert.equal(clean(once), once, `not idempotent for ${JSON.stringify(input)}`);
    }
  });
});
