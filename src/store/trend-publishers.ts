// Link publishers (migration 069, Mastodon's PreviewCardProvider): the domains trending links are on, and a
// moderator's verdict on each, which decides for every link of theirs that has no verdict of its own (store/trends.ts
// reads it through publisherOf). A refresh adds them (addFor); staff list and review them here.
import type { Database, Queryable } from './db.js';
import { pageSql, type PageQuery } from './paging.js';

export interface Publisher {
  readonly id: string;
  readonly domain: string;
  /** The verdict: true approved, false rejected, null unreviewed. */
  readonly trendable: boolean | null;
  readonly reviewedAt: Date | null;
  readonly requestedReviewAt: Date | null;
}

interface Row extends Record<string, unknown> {
  id: string;
  domain: string;
  trendable: boolean | null;
  reviewed_at: Date | null;
  requested_review_at: Date | null;
}

const COLUMNS = 'id, domain, trendable, reviewed_at, requested_review_at';

const toPublisher = (r: Row): Publisher => ({
  id: r.id,
  domain: r.domain,
  trendable: r.trendable,
  reviewedAt: r.reviewed_at,
  requestedReviewAt: r.requested_review_at,
});

/**
 * SQL: the host of URL expression `url` (links are stored WHATWG-normalized: lower-case scheme and host, punycode),
 * without user info or port; Mastodon's PreviewCard#domain.
 */
export function hostOf(url: string): string {
  return `substring(${url} from '^[a-z][a-z0-9+.-]*://(?:[^/?#@]*@)?(\\[[^]]*\\]|[^/:?#]*)')`;
}

/**
 * SQL: the id of the publisher of URL expression `url`, or null: the one whose domain is the URL's host or the
 * longest suffix of it (Mastodon's PreviewCardProvider.matching_domain), looked up by the domain index.
 */
export function publisherOf(url: string): string {
  return `(SELECT p.id FROM publishers p, (SELECT string_to_array(${hostOf(url)}, '.') AS parts) h
     WHERE p.domain IN (SELECT array_to_string(h.parts[i:], '.') FROM generate_subscripts(h.parts, 1) i)
     ORDER BY length(p.domain) DESC LIMIT 1)`;
}

export class TrendPublisherStore {
  constructor(private readonly db: Database) {}

  /** Staff's list, newest first, by Mastodon's id cursors. */
  async list(page: PageQuery): Promise<Publisher[]> {
    const values: unknown[] = [];
    const p = pageSql(page, 'id', values);
    const rows = await this.db.rows<Row>(`SELECT ${COLUMNS} FROM publishers WHERE true${p.where}${p.orderLimit}`, values);
    return p.newestFirst(rows).map(toPublisher);
  }

  async byId(id: string): Promise<Publisher | undefined> {
    const r = await this.db.one<Row>(`SELECT ${COLUMNS} FROM publishers WHERE id = $1`, [id]);
    return r && toPublisher(r);
  }

  /** Records a moderator's verdict; undefined: no such publisher. */
  async review(id: string, trendable: boolean, by: string): Promise<Publisher | undefined> {
    const r = await this.db.one<Row>(`UPDATE publishers SET trendable = $2, reviewed_at = now(), reviewed_by = $3 WHERE id = $1 RETURNING ${COLUMNS}`, [
      id,
      trendable,
      by,
    ]);
    return r && toPublisher(r);
  }
}

/**
 * Adds the publisher of each of these links that none covers yet (inside a refresh's transaction). Mastodon creates a
 * provider when a card first asks for review; here every counted link has one, so staff can review it beforehand.
 */
export async function addPublishersFor(q: Queryable, linkIds: readonly string[]): Promise<void> {
  if (linkIds.length === 0) return;
  await q.query(
    `INSERT INTO publishers (domain)
     SELECT DISTINCT ${hostOf('l.url')} FROM links l
      WHERE l.id = ANY($1::bigint[]) AND coalesce(${hostOf('l.url')}, '') <> '' AND ${publisherOf('l.url')} IS NULL
     ON CONFLICT (domain) DO NOTHING`,
    [linkIds],
  );
}
