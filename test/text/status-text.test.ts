// Plain-text status → Mastodon HTML: mentions, hashtags and links recognised by one scanner, and nothing the author
// typed ever reaching the output as markup.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extractHashtags, extractMentions, statusHtml, statusLength, type ResolvedMention } from '../../src/text/status-text.js';

const LINK_ATTRS = 'target="_blank" rel="nofollow noopener noreferrer"';
const link = (url: string): string => `<a href="${url}" ${LINK_ATTRS}>${url}</a>`;
const mention = (url: string, username: string): string => `<span class="h-card"><a href="${url}" class="u-url mention">@<span>${username}</span></a></span>`;
const tagUrl = (name: string): string => `https://stoa.example/tags/${encodeURIComponent(name)}`;
const hashtag = (name: string): string => `<a href="${tagUrl(name)}" class="mention hashtag" rel="tag">#<span>${name}</span></a>`;
const resolved = new Map<string, ResolvedMention>([
  ['bob', { url: 'https://stoa.example/@bob', username: 'bob' }],
  ['alice@remote.example', { url: 'https://remote.example/users/alice', username: 'alice' }],
  ['admin@127.0.0.1:43123', { url: 'http://127.0.0.1:43123/@admin', username: 'admin' }],
]);
const html = (text: string): string => statusHtml(text, resolved, tagUrl);
const accts = (text: string): string[] => extractMentions(text).map((m) => m.acct);

/** What is left of the output once the markup this module may write is removed: it must hold no '<' or '>'. */
function strayMarkup(out: string): string {
  return out
    .replace(/<a href="[^"<>]*" target="_blank" rel="nofollow noopener noreferrer">/g, '')
    .replace(/<span class="h-card"><a href="[^"<>]*" class="u-url mention">@<span>/g, '')
    .replace(/<a href="[^"<>]*" class="mention hashtag" rel="tag">#<span>/g, '')
    .replace(/<\/?p>|<br \/>|<\/span>|<\/a>/g, '');
}

describe('extractMentions', () => {
  it('returns local and remote mentions with username, lower-cased domain and acct as written', () => {
    assert.deepEqual(extractMentions('hi @bob and @Alice@Remote.Example!'), [
      { acct: 'bob', username: 'bob', domain: null },
      { acct: 'Alice@Remote.Example', username: 'Alice', domain: 'remote.example' },
    ]);
  });

  it('keeps an IPv4 or localhost host and its port in one mention', () => {
    assert.deepEqual(extractMentions('@admin@127.0.0.1:43123 hello'), [{ acct: 'admin@127.0.0.1:43123', username: 'admin', domain: '127.0.0.1:43123' }]);
    assert.deepEqual(extractMentions('@x@LocalHost:3000, @y@localhost'), [
      { acct: 'x@LocalHost:3000', username: 'x', domain: 'localhost:3000' },
      { acct: 'y@localhost', username: 'y', domain: 'localhost' },
    ]);
  });

  it('lists each mention once, by lower-cased acct, in order of first appearance', () => {
    assert.deepEqual(accts('@carol @Bob @bob @BOB@x.example @carol @bob@X.example'), ['carol', 'Bob', 'BOB@x.example']);
  });

  it('finds mentions at line starts (LF and CRLF) and next to punctuation', () => {
    assert.deepEqual(accts('@a\r\n@b\n@c (@d), @e. @f! @g? "@h" \'@i\' @j: [@k] @l;'), ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l']);
    assert.deepEqual(accts('@bob@remote.example. @carol@remote.example: hi'), ['bob@remote.example', 'carol@remote.example']);
  });

  it('leaves trailing dots and hyphens out of usernames but keeps inner ones', () => {
    assert.deepEqual(accts('@bob. @bob.smith @ann-marie- @x_y'), ['bob', 'bob.smith', 'ann-marie', 'x_y']);
  });

  it('does not read e-mail addresses, URLs or text after ":", "/" or "@" as mentions', () => {
    assert.deepEqual(accts('write to bob@example.com or see https://remote.example/@alice'), []);
    assert.deepEqual(accts('a:@bob /@bob @@bob x@bob é@bob'), []);
  });

  it('refuses a written domain that is not a dotted name, localhost or a valid IPv4 address, and a bad port', () => {
    for (const text of [
      '@bob@nodot',
      '@bob@999.1.1.1',
      '@bob@1.2.3',
      '@bob@-x.example',
      '@bob@x..example',
      '@bob@example.com:70000',
      '@bob@example.com:0',
      '@bob@',
      '@bob@example.com@more',
      '@bobé',
      '@.bob',
      '@-bob',
      '@',
    ]) {
      assert.deepEqual(extractMentions(text), [], text);
    }
  });
});

describe('extractHashtags', () => {
  it('finds Unicode hashtags and skips all-digit ones', () => {
    assert.deepEqual(extractHashtags('#café #日本語 #2024 #2024年 #snake_case'), ['café', '日本語', '2024年', 'snake_case']);
  });

  it('lists each tag once, case-insensitively, keeping the first spelling', () => {
    assert.deepEqual(extractHashtags('#Stoa #stoa #STOA #other'), ['Stoa', 'other']);
  });

  it('finds tags at line starts (LF and CRLF) and next to punctuation', () => {
    assert.deepEqual(extractHashtags('#a\r\n#b (#c), #d. #e! "#f" ##g'), ['a', 'b', 'c', 'd', 'e', 'f', 'g']);
  });

  it('does not read entities, words, paths or URL fragments as tags', () => {
    assert.deepEqual(extractHashtags('&#39; &#x27; a#b /#c https://x.example/#frag https://x.example/?q=#tag'), []);
  });
});

describe('statusHtml', () => {
  it('returns "" for empty or blank text', () => {
    assert.equal(html(''), '');
    assert.equal(html(' \n\r\n\t '), '');
  });

  it('makes paragraphs of blank-line-separated blocks and <br /> of single newlines, whatever the line endings', () => {
    const expected = '<p>one<br />two</p><p>three</p>';
    assert.equal(html('one\ntwo\n\nthree'), expected);
    assert.equal(html('one\r\ntwo\r\n\r\nthree'), expected);
    assert.equal(html('one\rtwo\r\rthree'), expected);
    assert.equal(html('\n\none\ntwo\n \t\n\n\nthree\n\n'), expected);
    assert.equal(html('one\ntwo\n \u00a0\nthree'), expected, 'a line of spaces is a blank line');
  });

  it('escapes every HTML-significant character the author typed', () => {
    assert.equal(html('<script>alert(1)</script>'), '<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>');
    assert.equal(html('"><img src=x onerror=alert(1)>'), '<p>&quot;&gt;&lt;img src=x onerror=alert(1)&gt;</p>');
    assert.equal(html("&amp; &lt; it's"), '<p>&amp;amp; &amp;lt; it&#39;s</p>');
  });

  it('links http and https URLs, escaping them in href and text', () => {
    assert.equal(html('see https://x.example/a?b=1&c=2 now'), `<p>see ${link('https://x.example/a?b=1&amp;c=2')} now</p>`);
    assert.equal(html('HTTP://X.example/Path'), `<p>${link('HTTP://X.example/Path')}</p>`);
    assert.equal(html('http://127.0.0.1:43123/@admin/1'), `<p>${link('http://127.0.0.1:43123/@admin/1')}</p>`);
  });

  it('leaves trailing punctuation and unbalanced parentheses out of links', () => {
    assert.equal(html('https://x.example/a.'), `<p>${link('https://x.example/a')}.</p>`);
    assert.equal(html('(https://x.example/a)!?'), `<p>(${link('https://x.example/a')})!?</p>`);
    assert.equal(html('https://x.example/,;:'), `<p>${link('https://x.example/')},;:</p>`);
    assert.equal(html('(https://en.wikipedia.org/wiki/Foo_(bar)).'), `<p>(${link('https://en.wikipedia.org/wiki/Foo_(bar)')}).</p>`);
    assert.equal(html('<https://x.example/a>'), `<p>&lt;${link('https://x.example/a')}&gt;</p>`);
  });

  it('ends a link at a double quote and escapes single quotes inside it', () => {
    assert.equal(html('https://x.example/"onmouseover="alert(1)'), `<p>${link('https://x.example/')}&quot;onmouseover=&quot;alert(1)</p>`);
    assert.equal(html("https://x.example/'onmouseover='alert(1)'"), `<p>${link('https://x.example/&#39;onmouseover=&#39;alert(1)')}&#39;</p>`);
  });

  it('does not link javascript:, data: or other schemes, nor URLs without a valid host', () => {
    assert.equal(html('javascript:alert(1)'), '<p>javascript:alert(1)</p>');
    assert.equal(html('JavaScript://x.example/%0aalert(1)'), '<p>JavaScript://x.example/%0aalert(1)</p>');
    assert.equal(html('data:text/html,<script>x</script>'), '<p>data:text/html,&lt;script&gt;x&lt;/script&gt;</p>');
    assert.equal(html('<a href="javascript:alert(1)">x</a>'), '<p>&lt;a href=&quot;javascript:alert(1)&quot;&gt;x&lt;/a&gt;</p>');
    assert.equal(html('http:// http://[bad xhttps://x.example'), '<p>http:// http://[bad xhttps://x.example</p>');
    assert.equal(html('javascript:https://x.example'), `<p>javascript:${link('https://x.example')}</p>`);
  });

  it('links resolved mentions by lower-cased acct and leaves unresolved ones as escaped text', () => {
    assert.equal(
      html('@Bob hi @ALICE@Remote.Example.'),
      `<p>${mention('https://stoa.example/@bob', 'bob')} hi ${mention('https://remote.example/users/alice', 'alice')}.</p>`,
    );
    assert.equal(
      html('(@admin@127.0.0.1:43123): @carol@elsewhere.example'),
      `<p>(${mention('http://127.0.0.1:43123/@admin', 'admin')}): @carol@elsewhere.example</p>`,
    );
  });

  it('refuses a resolved mention whose URL is not http(s), and escapes the resolved username', () => {
    const hostile = new Map<string, ResolvedMention>([
      ['eve', { url: 'javascript:alert(1)', username: 'eve' }],
      ['mallory', { url: 'https://evil.example/"><x>', username: '<img src=x onerror=alert(1)>' }],
    ]);
    assert.equal(statusHtml('@eve', hostile, tagUrl), '<p>@eve</p>');
    assert.equal(
      statusHtml('@mallory', hostile, tagUrl),
      `<p>${mention('https://evil.example/&quot;&gt;&lt;x&gt;', '&lt;img src=x onerror=alert(1)&gt;')}</p>`,
    );
  });

  it('links hashtags to tagUrl(name) with the name as typed, escaping the URL', () => {
    assert.equal(html('#Stoa, (#café) #2024'), `<p>${hashtag('Stoa')}, (${hashtag('café')}) #2024</p>`);
    assert.equal(
      statusHtml('#x', resolved, () => 'https://t.example/?a=1&b="2"'),
      '<p><a href="https://t.example/?a=1&amp;b=&quot;2&quot;" class="mention hashtag" rel="tag">#<span>x</span></a></p>',
    );
  });

  it('never reads a mention or tag inside a link', () => {
    assert.equal(html('https://x.example/@bob#tag'), `<p>${link('https://x.example/@bob#tag')}</p>`);
    assert.equal(html('https://x.example/?u=@bob&t=#tag'), `<p>${link('https://x.example/?u=@bob&amp;t=#tag')}</p>`);
  });

  it('writes no markup of its own for hostile input', () => {
    const inputs = [
      '<script>alert(1)</script>',
      '"><img src=x onerror=alert(1)>',
      "'><svg onload=alert(1)>",
      'https://x.example/"><script>alert(1)</script>',
      '@bob"><b>x</b>',
      '#tag"><i>x</i>',
      '</p><p onclick=x>',
      'https://x.example/<b>',
      '&lt;script&gt;',
      '<!-- x -->',
      '<![CDATA[x]]>',
      '\u0000<\u0000script>',
    ];
    for (const input of inputs) {
      const out = html(input);
      assert.doesNotMatch(strayMarkup(out), /[<>]/, `${input} → ${out}`);
    }
  });

  it('renders 100 KB of mixed input in well under a second', () => {
    const line = 'Hi @bob and @alice@remote.example, see https://x.example/a?b=1&c=(2) #stoa #日本語 <b>x</b> & "q"\n';
    const text = line.repeat(Math.ceil(100_000 / line.length));
    const started = performance.now();
    const out = html(text);
    assert.ok(performance.now() - started < 1000);
    assert.equal(out.split(hashtag('日本語')).length - 1, Math.ceil(100_000 / line.length));
    assert.doesNotMatch(strayMarkup(out), /[<>]/);
  });

  // A backtracking blow-up on 50 KB takes seconds to minutes; 1 s leaves room for a loaded machine (280 ms was seen
  // with the suite beside other work) without letting a quadratic pattern through.
  it('handles 50 KB of pathological @, # and dot patterns in under a second each', () => {
    const n = 50_000;
    const patterns = ['@', '#', 'a.', '@a.', '@a@', '@a@a.', '#a', '#1', '&#', 'http://[', 'https://a.', '(', ')', '@a@1.'];
    for (const unit of patterns) {
      const text = unit.repeat(Math.ceil(n / unit.length));
      for (const [name, run] of [
        ['statusHtml', () => html(text)],
        ['extractMentions', () => extractMentions(text)],
        ['extractHashtags', () => extractHashtags(text)],
      ] as const) {
        const started = performance.now();
        run();
        const ms = performance.now() - started;
        assert.ok(ms < 1_000, `${name} on ${JSON.stringify(unit)} × ${text.length / unit.length} took ${ms.toFixed(0)} ms`);
      }
    }
    for (const text of [
      `https://x.example/${'('.repeat(n)}`,
      `http://x/${')'.repeat(n)}`,
      `@a@${'a-'.repeat(n / 2)}`,
      `@a@b.c:${'1'.repeat(n)}`,
      `#${'1'.repeat(n)}`,
    ]) {
      const started = performance.now();
      html(text);
      extractMentions(text);
      assert.ok(performance.now() - started < 1_000, text.slice(0, 20));
    }
  });
});

describe('statusLength (as Mastodon counts against the limit)', () => {
  const length = (text: string, spoiler = ''): number => statusLength(text, spoiler, 23);

  it('counts every http(s) link as 23 characters, whatever its length', () => {
    assert.equal(length(`see https://example.com/${'a'.repeat(200)}`), 4 + 23);
    assert.equal(length('see http://x.example'), 4 + 23);
    // Not links: no scheme, another scheme, or a scheme with nothing after it.
    assert.equal(length('example.com/abc'), 15);
    assert.equal(length('ftp://example.com'), 17);
    assert.equal(length('http://'), 7);
  });

  it('counts a remote mention as its local part, a local mention and a hashtag as written', () => {
    assert.equal(length('hi @alice@a-very-long-server-name.example'), 3 + 6);
    assert.equal(length('hi @Alice@127.0.0.1:4000!'), 3 + 6 + 1);
    assert.equal(length('hi @alice'), 9);
    assert.equal(length('#Stoa'), 5);
    // An address inside a link is part of the link.
    assert.equal(length('https://example.com/@alice@remote.example'), 23);
  });

  it('counts grapheme clusters: an emoji sequence, a flag or a letter with its accents is one', () => {
    assert.equal(length('👨‍👩‍👧‍👦'), 1);
    assert.equal(length('🇫🇷🇩🇪'), 2);
    assert.equal(length('e\u0301'), 1);
    assert.equal(length('👍🏽x'), 2);
  });

  it('adds the content warning, and counts blank text as nothing', () => {
    assert.equal(length('abc', 'cw'), 5);
    assert.equal(length('  \n ', 'cw'), 2);
  });
});
