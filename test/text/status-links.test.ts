// The link a status is about (text/status-links.ts) and trend scores (store/trend-scores.ts): examples from real
// servers' HTML, and properties over any HTML and URL (fast-check, fixed seed, bounded runs).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { LINK_OPTIONS, peakScore, statusScore, TAG_OPTIONS } from '../../src/store/trend-scores.js';
import { normalizeLink, statusLink } from '../../src/text/status-links.js';

const params = { seed: 36, numRuns: 300 } as const;
const HOUR = 3_600_000;

describe('status links', () => {
  it('takes the first link that is neither a mention nor a hashtag', () => {
    const html =
      '<p><span class="h-card"><a href="https://a.example/@bob" class="u-url mention">@<span>bob</span></a></span> ' +
      '<a href="https://a.example/tags/news" class="mention hashtag" rel="tag">#<span>news</span></a> ' +
      '<a href="HTTPS://News.Example:443/story?x=1#top" rel="nofollow noopener" target="_blank">Big story</a> ' +
      '<a href="https://second.example/">second</a></p>';
    assert.deepEqual(statusLink(html), { url: 'https://news.example/story?x=1', title: 'Big story' });
  });

  it('keeps no title for a bare or shortened URL, and skips links that are no http(s)', () => {
    const local =
      '<p>read <a href="https://news.example/a/very/long/path" target="_blank" rel="nofollow noopener">https://news.example/a/very/long/path</a></p>';
    assert.deepEqual(statusLink(local), { url: 'https://news.example/a/very/long/path', title: '' });
    const mastodon =
      '<a href="https://news.example/a/very/long/path"><span class="invisible">https://</span><span class="ellipsis">news.example/a/very</span><span class="invisible">/long/path</span></a>';
    assert.equal(statusLink(mastodon)?.title, '');
    assert.equal(statusLink('<a href="mailto:x@example.com">mail</a> <a href="javascript:alert(1)">x</a>'), null);
    assert.equal(statusLink('<p>no links here</p>'), null);
  });

  it('normalizes URLs so one page posted two ways is one link', () => {
    assert.equal(normalizeLink('https://EXAMPLE.com'), 'https://example.com/');
    assert.equal(normalizeLink('http://example.com:80/a#b'), 'http://example.com/a');
    assert.equal(normalizeLink('https://user:pw@example.com/'), null);
    assert.equal(normalizeLink('not a url'), null);
    assert.equal(normalizeLink(`https://example.com/${'a'.repeat(3000)}`), null);
  });

  it('never throws on any HTML, and what it finds is a normalized http(s) URL', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 300 }),
          fc.webUrl().map((u) => `<p><a href="${u}">${u}</a></p>`),
        ),
        (html) => {
          const link = statusLink(html);
          if (link === null) return;
          assert.match(link.url, /^https?:\/\//);
          assert.equal(normalizeLink(link.url), link.url, 'normalizing is idempotent');
          assert.ok(link.title.length <= 200);
        },
      ),
      params,
    );
  });
});

describe('trend scores (Mastodon Trends::Tags, Links, Statuses)', () => {
  const at = Date.UTC(2026, 0, 10, 12);

  it('scores observed accounts over yesterday’s baseline, from the threshold on', () => {
    assert.equal(peakScore(4, 0, null, at, TAG_OPTIONS).score, 0, 'below the threshold of 5');
    assert.deepEqual(peakScore(5, 0, null, at, TAG_OPTIONS), { score: 16, maxScore: 16, maxScoreAt: at, listed: true });
    assert.equal(peakScore(6, 2, null, at, TAG_OPTIONS).score, 8);
    assert.equal(peakScore(5, 9, null, at, TAG_OPTIONS).score, 0, 'fewer than yesterday');
  });

  it('decays the peak with its half-life, and forgets it after the cooldown', () => {
    const peak = { maxScore: 16, maxScoreAt: at };
    assert.equal(peakScore(0, 0, peak, at + 4 * HOUR, TAG_OPTIONS).score, 8);
    assert.equal(peakScore(0, 0, peak, at + 8 * HOUR, LINK_OPTIONS).score, 8, 'links halve in 8 hours');
    assert.equal(peakScore(0, 0, peak, at + 20 * HOUR, TAG_OPTIONS).listed, false);
    assert.deepEqual(peakScore(0, 0, peak, at + 49 * HOUR, TAG_OPTIONS), { score: 0, maxScore: 0, maxScoreAt: null, listed: false });
  });

  it('scores a status by its boosts and favourites, halving each hour of its age', () => {
    assert.equal(statusScore(4, at, at).score, 0);
    assert.equal(statusScore(8, at - 2 * HOUR, at).score, 2);
    assert.equal(statusScore(8, at - 5 * HOUR, at).listed, false, '8/32 is under 0.3');
  });

  it('never scores below zero nor above the squared excess', () => {
    fc.assert(
      fc.property(fc.nat(1000), fc.nat(1000), fc.nat(100 * HOUR), (observed, yesterday, later) => {
        const s = peakScore(observed, yesterday, { maxScore: 0, maxScoreAt: at }, at + later, TAG_OPTIONS);
        assert.ok(s.score >= 0 && s.score <= Math.max(0, observed - Math.max(1, yesterday)) ** 2);
      }),
      params,
    );
  });
});
