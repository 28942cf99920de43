// The SQL that finds a link's publisher (store/trend-publishers.ts): the host of a stored link URL, and the publisher
// covering it, the longest suffix as Mastodon's PreviewCardProvider.matching_domain; fixed cases and properties over
// any http(s) URL as links are stored (text/status-links.ts normalizeLink).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import pg from 'pg';
import { hostOf, publisherOf } from '../../src/store/trend-publishers.js';
import { normalizeLink } from '../../src/text/status-links.js';
import { freshDatabaseUrl } from '../support/db.js';

const DOMAINS = ['blog.example', 'news.blog.example', 'other.example', 'xn--bcher-kva.example', '127.0.0.1'];

/** What the SQL should find: the publisher domain equal to the host or the longest dot-suffix of it. */
function expectedPublisher(url: string): string | null {
  const host = new URL(url).hostname;
  const covering = DOMAINS.filter((d) => host === d || host.endsWith(`.${d}`));
  return covering.sort((a, b) => b.length - a.length)[0] ?? null;
}

describe('link publishers SQL', () => {
  let pool: pg.Pool;
  /** [host, publisher domain] of each URL, in one statement. */
  const lookup = async (urls: readonly string[]): Promise<[string | null, string | null][]> => {
    const r = await pool.query<{ host: string | null; domain: string | null }>(
      `SELECT ${hostOf('u.url')} AS host, (SELECT p.domain FROM publishers p WHERE p.id = ${publisherOf('u.url')}) AS domain
         FROM unnest($1::text[]) WITH ORDINALITY AS u(url, n) ORDER BY u.n`,
      [urls],
    );
    return r.rows.map((x) => [x.host, x.domain]);
  };

  before(async () => {
    pool = new pg.Pool({ connectionString: await freshDatabaseUrl(), max: 2 });
    await pool.query('INSERT INTO publishers (domain) SELECT unnest($1::text[])', [DOMAINS]);
  });
  after(async () => {
    await pool?.end();
  });

  it('finds the host, and the publisher of the host or of its nearest parent domain', async () => {
    const cases: [string, string, string | null][] = [
      ['https://blog.example/a?b=c', 'blog.example', 'blog.example'],
      ['https://www.blog.example/', 'www.blog.example', 'blog.example'],
      ['https://news.blog.example/x', 'news.blog.example', 'news.blog.example'],
      ['http://a.news.blog.example:8080/x', 'a.news.blog.example', 'news.blog.example'],
      ['https://xblog.example/', 'xblog.example', null],
      ['https://example/', 'example', null],
      ['https://Bücher.example/Straße', 'xn--bcher-kva.example', 'xn--bcher-kva.example'],
      ['http://127.0.0.1:3000/', '127.0.0.1', '127.0.0.1'],
      ['http://[::1]:8080/', '[::1]', null],
      ['https://other.example?q=a.b/c', 'other.example', 'other.example'],
    ];
    const urls = cases.map(([u]) => normalizeLink(u)!);
    assert.deepEqual(
      await lookup(urls),
      cases.map(([, host, domain]) => [host, domain]),
    );
  });

  it('agrees with WHATWG for any stored http(s) URL (property)', async () => {
    const host = fc.oneof(
      fc.domain(),
      fc.constantFrom(...DOMAINS).chain((d) => fc.domain().map((sub) => `${sub.split('.')[0]}.${d}`)),
      fc.constantFrom(...DOMAINS),
    );
    const url = fc
      .tuple(fc.constantFrom('http', 'https'), host, fc.option(fc.integer({ min: 1, max: 65535 })), fc.webPath(), fc.webQueryParameters())
      .map(([scheme, h, port, path, query]) => normalizeLink(`${scheme}://${h}${port === null ? '' : `:${port}`}${path}?${query}`))
      .filter((u): u is string => u !== null);
    await fc.assert(
      fc.asyncProperty(fc.array(url, { minLength: 1, maxLength: 40 }), async (urls) => {
        const found = await lookup(urls);
        urls.forEach((u, i) => {
          assert.deepEqual(found[i], [new URL(u).hostname, expectedPublisher(u)], u);
        });
      }),
      { seed: 36, numRuns: 60 },
    );
  });
});
