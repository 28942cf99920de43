// The status → link index (migration 065): the link a status is about, written in the transaction that stores the
// status (local posts, incoming Notes and history alike go through StatusStore.create), so trends and the link
// timeline never parse HTML at read time.
import type { Queryable } from './db.js';
import { statusLink } from '../text/status-links.js';

/** Indexes the status's link, if its HTML has one: one upsert of the link and one row (`local`: posted here); the link's URL, or null. */
export async function linkStatus(q: Queryable, statusId: string, html: string, local: boolean): Promise<string | null> {
  const link = statusLink(html);
  if (!link) return null;
  // The title a trending link shows is the anchor text of its first poster until cards are fetched (issue 38): only
  // a local member's, so that a remote server posting a real URL first cannot give it a headline of its choosing.
  const title = local ? link.title : '';
  // DO NOTHING, not an update: a link many post at once is not a row every poster's transaction locks.
  const r = await q.query(
    `WITH ins AS (INSERT INTO links (url, title) VALUES ($2, $3) ON CONFLICT (url) DO NOTHING RETURNING id),
       l AS (SELECT id FROM ins UNION ALL SELECT id FROM links WHERE url = $2)
     INSERT INTO status_links (status_id, link_id) SELECT $1, id FROM l LIMIT 1 ON CONFLICT DO NOTHING`,
    [statusId, link.url, title],
  );
  // The link was inserted by a transaction that committed after this statement began: a new statement sees it.
  if (r.rowCount === 0) {
    await q.query('INSERT INTO status_links (status_id, link_id) SELECT $1, id FROM links WHERE url = $2 ON CONFLICT DO NOTHING', [statusId, link.url]);
  }
  return link.url;
}
