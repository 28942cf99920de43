// What a page says about itself (text/link-card-parse.ts) and an oEmbed document (text/oembed-parse.ts): pages as
// sites write them, and properties over any HTML (fast-check, fixed seed, bounded runs): never a throw, every string
// bounded, every address absolute http(s), an embed only ever our own iframe.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { MAX_DESCRIPTION, MAX_NAME, MAX_TITLE, MAX_URL, parsePage } from '../../src/text/link-card-parse.js';
import { parseOEmbed, safeIframe } from '../../src/text/oembed-parse.js';

const params = { seed: 38, numRuns: 300 } as const;
const BASE = 'https://news.example/a/story?x=1';

describe('a page read for its card', () => {
  it('prefers OpenGraph, then Twitter, then <title> and <meta name=description>', () => {
    const d = parsePage(
      `<html lang="pt-BR"><head><title>Doc &amp; title</title><meta name="description" content="plain desc">
       <meta name="twitter:title" content="tw title"><meta property="og:title" content=" OG   title ">
       <meta property="og:image" content="../img/a.png"><meta property="og:image:width" content="1200">
       <meta property="og:site_name" content="News"><meta property="article:published_time" content="2024-05-01T10:00:00Z">
       <link rel="alternate" type="application/json+oembed" href="/oembed?url=x"></head><body></body></html>`,
      BASE,
    );
    assert.equal(d.title, 'OG title');
    assert.equal(d.description, 'plain desc');
    assert.equal(d.image, 'https://news.example/img/a.png');
    assert.equal(d.imageWidth, 1200);
    assert.equal(d.siteName, 'News');
    assert.equal(d.language, 'pt');
    assert.equal(d.publishedAt?.toISOString(), '2024-05-01T10:00:00.000Z');
    assert.equal(d.oembedUrl, 'https://news.example/oembed?url=x');
    const bare = parsePage('<title>Only &lt;a&gt; title</title><meta name="twitter:description" content="tw">', BASE);
    assert.deepEqual([bare.title, bare.description, bare.image, bare.oembedUrl], ['Only <a> title', 'tw', null, null]);
  });

  it('reads nothing from the body, from comments or scripts, or from addresses that are not http(s)', () => {
    const d = parsePage(
      `<head><!-- <meta property="og:title" content="comment"> --><script>"<meta property='og:title' content='script'>"</script>
       <meta property="og:image" content="javascript:alert(1)"><base href="https://cdn.example/x/"></head>
       <body><meta property="og:title" content="body"><link rel="alternate" type="application/json+oembed" href="/o"></body>`,
      BASE,
    );
    assert.deepEqual([d.title, d.image, d.oembedUrl], ['', null, null]);
    assert.equal(parsePage('<base href="https://cdn.example/x/"><meta property="og:image" content="i.png">', BASE).image, 'https://cdn.example/x/i.png');
  });

  it('never throws, and returns bounded strings and absolute http(s) addresses, over any tag soup', () => {
    const names = fc.constantFrom('meta', 'link', 'title', 'base', 'html', 'head', 'script', 'body', 'a', 'iframe', 'svg', '!--', '!doctype', '?xml');
    const keys = fc.constantFrom('property', 'name', 'content', 'rel', 'type', 'href', 'lang', 'itemprop', 'src');
    const values = fc.oneof(
      fc.constantFrom('og:title', 'og:image', 'og:description', 'twitter:title', 'alternate', 'application/json+oembed', 'description', 'og:image:width'),
      fc.string({ maxLength: 40 }),
      fc.constantFrom('&amp;', '&#x0;', '&#99999999;', '&lt;', '&', '"', "'", '>', 'https://x.example/a', 'javascript:x', '//evil/'),
      fc.nat(5000).map((n) => 'x'.repeat(n * 10)),
    );
    const attr = fc.tuple(keys, values, fc.constantFrom('"', "'", '')).map(([k, v, q]) => `${k}=${q}${v}${q}`);
    const tag = fc
      .tuple(fc.boolean(), names, fc.array(attr, { maxLength: 5 }), fc.boolean())
      .map(([close, n, attrs, self]) => `<${close ? '/' : ''}${n} ${attrs.join(' ')}${self ? '/' : ''}>`);
    const soup = fc
      .array(fc.oneof(tag, fc.string({ maxLength: 30 }), fc.string({ unit: 'grapheme', maxLength: 10 })), { maxLength: 60 })
      .map((a) => a.join(''));
    fc.assert(
      fc.property(soup, (html) => {
        const d = parsePage(html, BASE);
        assert.ok(d.title.length <= MAX_TITLE && d.description.length <= MAX_DESCRIPTION && d.imageDescription.length <= MAX_DESCRIPTION);
        assert.ok(d.siteName.length <= MAX_NAME && d.authorName.length <= MAX_NAME);
        for (const u of [d.image, d.oembedUrl]) if (u !== null) assert.ok(/^https?:\/\//.test(u) && u.length <= MAX_URL, u);
        assert.ok(d.imageWidth >= 0 && d.imageWidth <= 100_000);
        assert.ok(d.language === null || /^[a-z]{2,3}$/.test(d.language));
      }),
      params,
    );
  });

  it('stays linear on a huge attribute and an unclosed tag', () => {
    const big = `<meta property="og:title" content="${'t'.repeat(500_000)}"><meta property="og:description" content="${'d '.repeat(200_000)}"><meta x="`;
    const d = parsePage(big, BASE);
    assert.equal(d.title.length, MAX_TITLE);
    assert.ok(d.description.length <= MAX_DESCRIPTION);
  });
});

describe('an oEmbed document', () => {
  it('keeps a video or rich embed only as our own https iframe', () => {
    const o = parseOEmbed(
      {
        type: 'rich',
        title: 'T',
        html: '<div onclick="x"><iframe src="https://p.example/e?a=1&amp;b=2" width="300"></iframe></div>',
        width: '500',
        height: 200,
      },
      'https://p.example/oembed',
    );
    assert.ok(o);
    assert.equal(
      o.html,
      '<iframe src="https://p.example/e?a=1&#38;b=2" width="500" height="200" frameborder="0" allowfullscreen="true" sandbox="allow-scripts allow-same-origin allow-popups allow-popups-to-escape-sandbox allow-forms"></iframe>',
    );
    assert.equal(safeIframe('<iframe src="http://p.example/e"></iframe>', 1, 1), '');
    assert.equal(safeIframe('<script>x</script>', 1, 1), '');
    assert.equal(safeIframe('<iframe src="javascript:alert(1)"></iframe>', 1, 1), '');
    assert.equal(parseOEmbed({ type: 'photo', url: '/p.jpg', html: '<iframe src="https://x/"></iframe>' }, 'https://p.example/o')?.html, '');
    assert.equal(parseOEmbed({ type: 'photo', url: '/p.jpg' }, 'https://p.example/o')?.image, 'https://p.example/p.jpg');
    assert.equal(parseOEmbed({ type: 'nonsense' }, 'https://p.example/o'), null);
    assert.equal(parseOEmbed('not an object', 'https://p.example/o'), null);
  });

  it('never throws over any JSON, and its iframe is always ours', () => {
    fc.assert(
      fc.property(
        fc.record(
          { type: fc.constantFrom('video', 'rich', 'photo', 'link', 'x'), html: fc.string({ maxLength: 200 }), title: fc.anything(), width: fc.anything() },
          { requiredKeys: [] },
        ),
        (doc) => {
          const o = parseOEmbed(doc, 'https://p.example/o');
          if (o) {
            assert.ok(o.html === '' || /^<iframe src="https:\/\/[^"<>]*" width="\d+" height="\d+" [^<>]*><\/iframe>$/.test(o.html), o.html);
            assert.ok(o.title.length <= MAX_TITLE);
          }
        },
      ),
      params,
    );
  });
});
