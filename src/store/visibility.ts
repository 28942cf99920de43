// Who may read what, as SQL predicates: the one place every visibility rule lives. Timelines, notifications,
// interactions, polls and reactions build their queries from these; so will anything new that lists statuses
// (streaming, remote history confinement, the /api/v3 adapter). Each returns a boolean SQL expression over the
// aliases and parameters it is given; none runs a query.

/**
 * A viewer given as a parameter (`$2`, `$2::bigint`) is the same on every row, so the accounts it blocks, is blocked
 * by or mutes are read once per statement into a hashed set (PostgreSQL's hashed SubPlan): each row is then a hash
 * probe rather than an index search per rule (a 40-item notifications page: ~70 µs of ~800 of PostgreSQL, issue 19).
 * The set is read whole, so a page costs more for a viewer with a large one: with 10,000 blocks, ~2 ms a page, where
 * the per-row search cost a thread ~0.9 ms and a notifications page ~8 ms (its blocks test, an OR, searched blocks).
 * A viewer that is a column (a row's recipient) keeps the per-row search.
 */
const isParam = (viewer: string): boolean => /^\$\d+(::bigint)?$/.test(viewer);

/**
 * The accounts viewer V (a parameter) blocks, is blocked by, has muted (unexpired) or whose domain V blocks: one
 * set, read once.
 * `notifications`: only the mutes that hide notifications (a notification's sender).
 */
export function silencedBy(viewer: string, mutes: 'all' | 'notifications' = 'all'): string {
  return `(SELECT b.target_account_id FROM blocks b WHERE b.account_id = ${viewer}
      UNION ALL SELECT b.account_id FROM blocks b WHERE b.target_account_id = ${viewer}
      UNION ALL SELECT mu.target_account_id FROM mutes mu WHERE mu.account_id = ${viewer}${mutes === 'notifications' ? ' AND mu.hide_notifications' : ''}
        AND (mu.expires_at IS NULL OR mu.expires_at > now())
      UNION ALL ${domainBlockedBy(viewer)})`;
}

/**
 * SQL: the accounts on the domains viewer V blocks (Mastodon's AccountDomainBlock: the exact domain). A member
 * neither follows nor is followed by them (services/domain-block-service.ts), so, as Mastodon's feeds, streams,
 * notifications and searches do, everything of theirs is hidden from the member, as a block's would be.
 */
function domainBlockedBy(viewer: string): string {
  return `SELECT da.id FROM account_domain_blocks adb JOIN accounts da ON lower(da.domain) = adb.domain WHERE adb.account_id = ${viewer}`;
}

/** True when status s's author is neither blocked by, blocking, (unexpired) muted by nor domain-blocked by viewer V ($n). */
export function notSilenced(viewer: string, column = 's.account_id'): string {
  if (isParam(viewer)) return `NOT (${column} IN ${silencedBy(viewer)})`;
  return `NOT EXISTS (SELECT 1 FROM blocks b WHERE (b.account_id = ${viewer} AND b.target_account_id = ${column})
      OR (b.account_id = ${column} AND b.target_account_id = ${viewer}))
    AND NOT EXISTS (SELECT 1 FROM mutes mu WHERE mu.account_id = ${viewer} AND mu.target_account_id = ${column}
      AND (mu.expires_at IS NULL OR mu.expires_at > now()))
    AND NOT EXISTS (SELECT 1 FROM accounts da JOIN account_domain_blocks adb ON adb.account_id = ${viewer} AND adb.domain = lower(da.domain)
      WHERE da.id = ${column})`;
}

/** Neither the author nor, for a boost, the boosted author is blocked or muted by (or blocking) viewer $n. */
export function quiet(viewer: string): string {
  return `${notSilenced(viewer)} AND (s.reblog_of_id IS NULL OR ${notSilenced(viewer, '(SELECT ro.account_id FROM statuses ro WHERE ro.id = s.reblog_of_id)')})`;
}

/**
 * Status s is in a language viewer $n reads in the public and hashtag feeds (Mastodon's chosen_languages: none
 * chosen reads all; a status with no language always passes). The viewer's choice is read once per query.
 */
export function inChosenLanguage(viewer: string): string {
  const chosen = `(SELECT cl.chosen_languages FROM users cl WHERE cl.account_id = ${viewer})`;
  return `(s.language IS NULL OR ${chosen} IS NULL OR s.language = ANY(${chosen}::text[]))`;
}

/**
 * SQL that is true when the viewer (a parameter such as `$2`; null: no one signed in) may read status `a`: the one
 * visibility rule every read goes through. Not deleted; public and unlisted for everyone, private for the author,
 * followers and mentioned accounts, direct for the author and mentioned accounts; nothing from an author who blocked
 * the viewer; and a boost only with the status it boosts.
 */
export function visibleTo(viewer: string | null, a = 's', boosts: 'inline' | 'called' = 'inline'): string {
  const boosted = boosts === 'called' && viewer !== null ? boostedReadableCalled(viewer, a) : boostedReadable(viewer, a);
  return `(${readableRow(viewer, a)} AND ${boosted})`;
}

/**
 * boostedReadable for statements where boosts are rare (notifications name boosted statuses, not boosts; a thread's
 * replies are no boosts): the boosted status is judged by the function status_readable (migration 060, readableRow
 * written out), whose plan is set up only when a boost is met, not on every execution.
 */
function boostedReadableCalled(viewer: string, a: string): string {
  return `(${a}.reblog_of_id IS NULL OR status_readable(${a}.reblog_of_id, ${viewer}))`;
}

/** The rule for one row, boosts aside. */
export function readableRow(viewer: string | null, a: string): string {
  if (viewer === null) return `(${a}.deleted_at IS NULL AND ${a}.visibility <= 1 AND ${authorNotSuspended(a)})`;
  return `(${a}.deleted_at IS NULL AND ${authorNotSuspended(a)} AND (${a}.visibility <= 1 OR ${a}.account_id = ${viewer}
      OR (${a}.visibility = 2 AND EXISTS (SELECT 1 FROM follows vf WHERE vf.account_id = ${viewer} AND vf.target_account_id = ${a}.account_id))
      OR EXISTS (SELECT 1 FROM status_mentions vm WHERE vm.status_id = ${a}.id AND vm.account_id = ${viewer}))
    AND ${notBlockedBy(viewer, `${a}.account_id`)})`;
}

/** SQL: the account `column` does not block the viewer (a parameter: read once, hashed; see isParam). */
export function notBlockedBy(viewer: string, column: string): string {
  return isParam(viewer)
    ? `NOT (${column} IN (SELECT vb.account_id FROM blocks vb WHERE vb.target_account_id = ${viewer}))`
    : `NOT EXISTS (SELECT 1 FROM blocks vb WHERE vb.account_id = ${column} AND vb.target_account_id = ${viewer})`;
}

/**
 * SQL: status `a`'s author is not suspended (by a moderator, or with its domain), as Mastodon hides a suspended
 * account's posts from everyone. The author's row is found by primary key.
 */
export function authorNotSuspended(a: string): string {
  return `NOT EXISTS (SELECT 1 FROM accounts ${a}x WHERE ${a}x.id = ${a}.account_id AND ${a}x.suspended_at IS NOT NULL)`;
}

/**
 * SQL: true when the text column `col` (a host, perhaps with a port) is covered by the domain block named in the
 * expression `d`: the same host, or (for a block named without a port) the same host name or a subdomain of it.
 */
export function domainCovers(col: string, d: string): string {
  return `(lower(${col}) = ${d} OR (${d} !~ ':' AND (split_part(lower(${col}), ':', 1) = ${d}
    OR right(split_part(lower(${col}), ':', 1), length(${d}) + 1) = '.' || ${d})))`;
}

/**
 * SQL: status `a` may be in the public feeds (public, local, remote, hashtags): its author is not suspended, and
 * neither silenced by a moderator nor on a domain the operator silenced (Mastodon's silence keeps an account's posts
 * out of public timelines; its followers still see them).
 */
export function publicFeedable(a = 's'): string {
  return `${authorNotSuspended(a)} AND NOT EXISTS (SELECT 1 FROM accounts ${a}p WHERE ${a}p.id = ${a}.account_id AND (${a}p.silenced_at IS NOT NULL
    OR (${a}p.domain IS NOT NULL AND EXISTS (SELECT 1 FROM domain_blocks ${a}d WHERE ${a}d.severity = 'silence' AND ${domainCovers(`${a}p.domain`, `lower(${a}d.domain)`)}))))`;
}

/**
 * True for a status that is not a boost, or whose boosted status the viewer may read (a boost of a deleted post is
 * gone with it). Home uses it alone: its other conditions already imply the rest of the rule.
 */
export function boostedReadable(viewer: string | null, a = 's'): string {
  return `(${a}.reblog_of_id IS NULL OR EXISTS (SELECT 1 FROM statuses ${a}o WHERE ${a}o.id = ${a}.reblog_of_id AND ${readableRow(viewer, `${a}o`)}))`;
}

/**
 * SQL: status `a` may be listed in a feed or a search (spec Events §2, issue 16). A remote history post (imported
 * from its author's outbox, never delivered) is readable by id, in its account's statuses and in threads, but no
 * query that lists statuses across accounts (home, lists, public, hashtags, full-text and hashtag search,
 * notifications of its existence) may show it until a delivery promotes it. A boost of it by someone else is its own
 * row and is listed as any boost is.
 */
export function listable(a = 's'): string {
  return `NOT ${a}.history`;
}

/**
 * SQL: the member `who` has not muted the thread whose root is `root` (an expression such as
 * `(SELECT thread_root($2::bigint))`, which PostgreSQL then walks at most once per statement, and only when a
 * recipient has muted some thread: the first test answers for everyone else). A null root is no thread.
 */
export function threadNotMuted(who: string, root: string): string {
  return `(NOT EXISTS (SELECT 1 FROM thread_mutes t0 WHERE t0.account_id = ${who})
    OR NOT EXISTS (SELECT 1 FROM thread_mutes tm WHERE tm.account_id = ${who} AND tm.root_status_id = ${root}))`;
}
