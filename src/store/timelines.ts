// The timelines: an account's statuses, home, lists, public and hashtag feeds, and full-text search, each as the
// viewer may read them (visibility.ts). Pages follow Mastodon: max_id (older than), since_id (newer than, newest
// first), min_id (just newer, oldest first, returned newest first), limit. Every feed goes through feed(), which leaves
// out remote history posts (visibility.ts listable); only an account's own statuses (ofAccount) list them.
import type { Database } from './db.js';
import { pageSql, type PageQuery, type PageSql } from './paging.js';
import { STATUS_COLUMNS, STATUS_ROWS, tagKey, toStatus, type Status, type StatusRow } from './statuses.js';
import type { PageShape } from './status-refs.js';
import { authorNotSuspended, boostedReadable, inChosenLanguage, listable, notSilenced, publicFeedable, quiet, visibleTo } from './visibility.js';

/** Statuses with at least one attachment (only_media): boosts carry none of their own, so they drop out too. */

/** The most a tag's collection counts (countLocalTagged). */
const TAGGED_COUNT_MAX = 10_000;
export const HAS_MEDIA = ' AND EXISTS (SELECT 1 FROM media_attachments ma WHERE ma.status_id = s.id AND NOT ma.removed)';

// The feeds' rules over status `s`, shared by the REST timelines and streaming (store/stream-audience.ts), so a
// stream shows exactly what the timeline would. Remote history posts are left out by feed() (and by streaming,
// which never hears of them).

/**
 * Home of viewer `v` (an SQL expression): the member's own statuses, those of accounts they follow, public posts with
 * a hashtag they follow (followedTag), and direct statuses mentioning them. Follow options: boosts of accounts
 * followed with show_reblogs off stay out, as do posts in languages the follow does not want (a post of unknown
 * language passes). Both start with a hashed NOT IN that excuses almost every row, so the per-row check runs only for
 * accounts followed with a language list.
 */
export function homeRule(v: string): string {
  return homeRuleWith(
    v,
    `s.account_id IN (SELECT target_account_id FROM follows WHERE account_id = ${v})
        AND (s.reblog_of_id IS NULL OR s.account_id NOT IN (SELECT target_account_id FROM follows WHERE account_id = ${v} AND NOT show_reblogs))
        AND (s.reblog_of_id IS NOT NULL OR s.language IS NULL
          OR s.account_id NOT IN (SELECT target_account_id FROM follows WHERE account_id = ${v} AND languages IS NOT NULL)
          OR EXISTS (SELECT 1 FROM follows lf WHERE lf.account_id = ${v} AND lf.target_account_id = s.account_id AND split_part(s.language, '-', 1) = ANY(lf.languages)))`,
  );
}

/**
 * homeRule as per-row probes, for the rows of the member's home_feeds: the same test, written so that each row
 * looks up its one follow (unique per pair) by index instead of hashing all the member's follows, which costs
 * ~1.2 ms a page at 5,000 follows whatever the page's size (issue 19). test/store/home-feed.test.ts holds them equal.
 */
export function homeRuleProbed(v: string): string {
  return homeRuleWith(
    v,
    `EXISTS (SELECT 1 FROM follows hfo WHERE hfo.account_id = ${v} AND hfo.target_account_id = s.account_id
        AND (s.reblog_of_id IS NULL OR hfo.show_reblogs)
        AND (s.reblog_of_id IS NOT NULL OR s.language IS NULL OR hfo.languages IS NULL OR split_part(s.language, '-', 1) = ANY(hfo.languages)))`,
  );
}

/**
 * Status s is a public post (not a boost) with a hashtag viewer v follows, by an author the public feeds may show (not
 * silenced): Mastodon's FanOutOnWriteService#deliver_to_hashtag_followers!, whose `broadcastable?` is the same test.
 * As FeedManager#filter_from_tags?, a post mentioning an account v blocks or mutes stays out too (the author's blocks
 * and mutes are the home rule's).
 */
function followedTag(v: string): string {
  // The first test names no row of s: for a viewer given as a parameter it runs once per statement, so the home of a
  // member who follows no tag pays nothing per row.
  return `s.visibility = 0 AND s.reblog_of_id IS NULL AND EXISTS (SELECT 1 FROM tag_follows htf0 WHERE htf0.account_id = ${v})
        AND EXISTS (SELECT 1 FROM status_tags hst JOIN tag_follows htf ON htf.tag_id = hst.tag_id WHERE hst.status_id = s.id AND htf.account_id = ${v})
        AND ${publicFeedable()}
        AND NOT EXISTS (SELECT 1 FROM status_mentions htm WHERE htm.status_id = s.id
          AND (EXISTS (SELECT 1 FROM blocks htb WHERE htb.account_id = ${v} AND htb.target_account_id = htm.account_id)
            OR EXISTS (SELECT 1 FROM mutes htu WHERE htu.account_id = ${v} AND htu.target_account_id = htm.account_id
              AND (htu.expires_at IS NULL OR htu.expires_at > now()))))`;
}

/** The home rule around `followed`, the test that status s is by an account v follows, with that follow's options. */
function homeRuleWith(v: string, followed: string): string {
  return `s.deleted_at IS NULL AND (s.account_id = ${v}
      OR (s.visibility <= 2 AND ${followed})
      OR (${followedTag(v)})
      OR (s.visibility = 3 AND EXISTS (SELECT 1 FROM status_mentions hm WHERE hm.status_id = s.id AND hm.account_id = ${v})))
      AND ${quiet(v)} AND ${boostedReadable(v)} AND ${authorNotSuspended('s')}
      AND (s.account_id = ${v} OR NOT EXISTS (SELECT 1 FROM list_accounts la JOIN lists l ON l.id = la.list_id
        WHERE l.account_id = ${v} AND l.exclusive AND la.account_id = s.account_id))`;
}

/**
 * List `list` of member `owner` with replies policy `policy` (SQL expressions): its members' statuses the owner may
 * see (not direct ones), with replies as the policy says: none, replies to list members, or replies to anyone the
 * owner follows. Self-threads and replies to the owner are always in, as in Mastodon's FeedManager#filter_from_list?.
 */
export function listRule(list: string, owner: string, policy: string): string {
  return listRuleWith(owner, policy, (who) => `${who} IN (SELECT account_id FROM list_accounts WHERE list_id = ${list})`);
}

/**
 * listRule with each membership looked up by index, for the rows of a list's feed: a handful of probes instead of
 * hashing all the list's members for every page. test/store/list-feed.test.ts holds the two equal.
 */
export function listRuleProbed(list: string, owner: string, policy: string): string {
  return listRuleWith(owner, policy, (who) => `EXISTS (SELECT 1 FROM list_accounts lm WHERE lm.list_id = ${list} AND lm.account_id = ${who})`);
}

function listRuleWith(owner: string, policy: string, member: (who: string) => string): string {
  return `s.visibility <= 2 AND ${member('s.account_id')}
      AND ${visibleTo(owner)} AND ${quiet(owner)}
      AND ((s.in_reply_to_id IS NULL AND s.in_reply_to_uri IS NULL) OR s.in_reply_to_account_id = s.account_id OR s.in_reply_to_account_id = ${owner}
        OR (${policy} = 'list' AND ${member('s.in_reply_to_account_id')})
        OR (${policy} = 'followed' AND s.in_reply_to_account_id IN (SELECT target_account_id FROM follows WHERE account_id = ${owner})))`;
}

/**
 * A feed's page rows (a LEFT JOIN's null row dropped) when the feed can vouch for the page, else null. A feed holds every
 * candidate at or above its horizon, so the page equals the pull query's when every status the pull query could put
 * on it is at or above the horizon: the page's lower cursor (since_id, min_id) is, or a newest-first page came out
 * full with its oldest row at or above it.
 */
function fedRows<T extends { id: string | null }>(rows: readonly T[], page: PageQuery, p: PageSql, feedHorizon: string): T[] | null {
  const horizon = BigInt(feedHorizon);
  const ascending = p.order === 'ASC';
  const found = rows.filter((r) => r.id !== null && r.id !== undefined);
  const lower = [page.sinceId, page.minId].reduce((m, c) => (c !== undefined && BigInt(c) > m ? BigInt(c) : m), 0n);
  const oldest = found.length ? BigInt(String(found[ascending ? 0 : found.length - 1]!.id)) : null;
  const vouched = lower >= horizon || (!ascending && found.length === page.limit && oldest !== null && oldest >= horizon);
  return vouched ? found : null;
}

/**
 * Just above the newest status of member `m` whose fan-out is a pending job (migration 078), 0 when none: the feed's
 * rows of it may be missing until the job is done, so the feed vouches only for what is above it. The jobs pending
 * are few (posts of the last seconds by accounts with many followers), each probing one follow by index.
 */
function pendingEdge(m: string): string {
  return `coalesce((SELECT max(j.status_id) + 1 FROM home_feed_jobs j
           WHERE EXISTS (SELECT 1 FROM follows jf WHERE jf.account_id = ${m} AND jf.target_account_id = j.author_id)), 0)`;
}

/** The public feeds, as Mastodon's: public posts, no boosts, no replies to other accounts (self-threads stay). */
export const PUBLIC_RULE = `s.deleted_at IS NULL AND s.visibility = 0 AND s.reblog_of_id IS NULL
      AND ((s.in_reply_to_id IS NULL AND s.in_reply_to_uri IS NULL) OR s.in_reply_to_account_id = s.account_id) AND ${publicFeedable()}`;

/** The hashtag feeds (replies included), before the tags themselves are matched. */
export const TAG_RULE = `s.deleted_at IS NULL AND s.visibility = 0 AND s.reblog_of_id IS NULL AND ${publicFeedable()}`;

/**
 * The feeds, each page read as `shape` says: whole rows (the default) or refs (status-refs.ts), which the client API's
 * timelines read so that statuses held rendered cost no row (views/status-views.ts fromRefs).
 */
export class TimelineStore<R = Status[]> {
  constructor(
    private readonly db: Database,
    private readonly shape: PageShape<R> = STATUS_ROWS as PageShape<unknown> as PageShape<R>,
  ) {}

  /** An account's statuses as the viewer may see them. */
  async ofAccount(
    accountId: string,
    viewerId: string | null,
    page: PageQuery,
    opts: { excludeReplies?: boolean; excludeReblogs?: boolean; tagged?: string; onlyMedia?: boolean } = {},
  ): Promise<R> {
    const values: unknown[] = [accountId];
    const v = viewerId === null ? null : `$${values.push(viewerId)}`;
    let where = `s.account_id = $1 AND ${visibleTo(v)}`;
    // Boosts of posts by accounts the viewer blocks or mutes (or who block them) are left out.
    if (v) where += ` AND (s.reblog_of_id IS NULL OR ${notSilenced(v, '(SELECT ro.account_id FROM statuses ro WHERE ro.id = s.reblog_of_id)')})`;
    // Nothing of an account on a domain the viewer blocks, unless the viewer follows it (Mastodon's
    // AccountStatusesFilter#blocked?).
    if (v)
      where += ` AND NOT EXISTS (SELECT 1 FROM accounts oa JOIN account_domain_blocks oab ON oab.domain = lower(oa.domain) WHERE oa.id = $1 AND oab.account_id = ${v}
        AND NOT EXISTS (SELECT 1 FROM follows of WHERE of.account_id = ${v} AND of.target_account_id = $1))`;
    if (opts.excludeReplies) where += ' AND (s.in_reply_to_id IS NULL OR s.in_reply_to_account_id = s.account_id)';
    if (opts.excludeReblogs) where += ' AND s.reblog_of_id IS NULL';
    if (opts.onlyMedia) where += HAS_MEDIA;
    if (opts.tagged)
      where += ` AND EXISTS (SELECT 1 FROM status_tags st JOIN tags t ON t.id = st.tag_id WHERE st.status_id = s.id AND t.key = $${values.push(tagKey(opts.tagged))})`;
    return this.page(where, values, page, viewerId);
  }

  /**
   * The member's own statuses, those of accounts they follow, and direct statuses mentioning them: read from the
   * materialised feed when it can answer for the page, else by the pull query over all statuses.
   */
  async home(viewerId: string, page: PageQuery): Promise<R> {
    return (await this.homeFromFeed(viewerId, page)) ?? this.homePulled(viewerId, page);
  }

  /** The home page by the pull query: the rule over every status, newest first (the truth the feed must match). */
  homePulled(viewerId: string, page: PageQuery): Promise<R> {
    return this.feed(homeRule('$1'), [viewerId], page, viewerId);
  }

  /**
   * The home page from `home_feeds` (migration 054), or null when the feed cannot vouch for it. The feed holds every
   * candidate at or above the member's horizon (0: all of them; raised above any post whose fan-out job is pending,
   * pendingEdge), and the same rule is applied to its rows, so the
   * page equals the pull query's when every status the pull query could put on it is at or above the horizon: the
   * page's lower cursor (since_id, min_id) is at or above it, or a newest-first page came out full with its oldest
   * row at or above it. Otherwise (a short feed's end, paging below the horizon) the caller pulls.
   */
  async homeFromFeed(viewerId: string, page: PageQuery): Promise<R | null> {
    const values: unknown[] = [viewerId];
    const p = pageSql(page, 'hf.status_id', values);
    // The member as an InitPlan, not $1: seeing the value, the planner costed each custom plan below the generic one
    // (a heavy member's 805 feed rows against 212 on average) and so planned every page afresh, 1.8–7 ms of planning
    // for a 0.4 ms run. Opaque, the generic plan is kept after five executions.
    const me = '(SELECT $1::bigint)';
    const rows = await this.db.rows<{ feed_horizon: string; id: string | null }>(
      this.shape.statement(
        `SELECT hz.feed_horizon, p.* FROM (SELECT greatest(coalesce((SELECT h.horizon FROM home_feed_horizons h WHERE h.account_id = ${me}), 0),
           ${pendingEdge(me)})::text AS feed_horizon) hz
       LEFT JOIN LATERAL (SELECT ${this.shape.columns} FROM home_feeds hf JOIN statuses s ON s.id = hf.status_id
         WHERE hf.account_id = ${me} AND (${homeRuleProbed(me)}) AND ${listable()}${p.where}${p.orderLimit}) p ON true
       ORDER BY p.id ${p.order}`,
        values,
        viewerId,
        p.order,
      ),
      values,
      'prepared',
    );
    const found = fedRows(rows, page, p, rows[0]?.feed_horizon ?? '0');
    return found ? this.shape.collect(p.newestFirst(found), viewerId) : null;
  }

  /**
   * A list's timeline: its members' statuses the owner may see (not direct ones), with replies as the list's policy
   * says: none, replies to list members, or replies to anyone the owner follows. Self-threads and replies to the owner
   * are always in, as in Mastodon's FeedManager#filter_from_list?. Read from the list's feed (`list_feeds`, migration
   * 057) when it can vouch for the page, else by the pull query; undefined: no such list of the owner's.
   */
  async listTimeline(listId: string, ownerId: string, page: PageQuery): Promise<R | undefined> {
    const fed = await this.listFromFeed(listId, ownerId, page);
    return fed === null ? this.listPulled(listId, ownerId, page) : fed;
  }

  /**
   * A list's page from its feed, or null when the feed cannot vouch for it (as homeFromFeed: the page's lower cursor is
   * at or above the list's horizon, or a newest-first page came out full with its oldest row at or above it). The list's
   * row (its replies policy) and horizon are read in the same statement.
   */
  async listFromFeed(listId: string, ownerId: string, page: PageQuery): Promise<R | undefined | null> {
    const values: unknown[] = [listId, ownerId];
    const p = pageSql(page, 'lf.status_id', values);
    const rows = await this.db.rows<{ feed_horizon: string; id: string | null }>(
      this.shape.statement(
        `SELECT coalesce(h.horizon, 0)::text AS feed_horizon, p.* FROM lists l LEFT JOIN list_feed_horizons h ON h.list_id = l.id
         LEFT JOIN LATERAL (SELECT ${this.shape.columns} FROM list_feeds lf JOIN statuses s ON s.id = lf.status_id
           WHERE lf.list_id = $1 AND (${listRuleProbed('$1', '$2', 'l.replies_policy')}) AND ${listable()}${p.where}${p.orderLimit}) p ON true
         WHERE l.id = $1 AND l.account_id = $2 ORDER BY p.id ${p.order}`,
        values,
        ownerId,
        p.order,
      ),
      values,
      'prepared',
    );
    if (rows.length === 0) return undefined;
    const found = fedRows(rows, page, p, rows[0]!.feed_horizon);
    return found ? this.shape.collect(p.newestFirst(found), ownerId) : null;
  }

  /** A list's page by the pull query: the rule over every status, newest first (the truth the feed must match). */
  async listPulled(listId: string, ownerId: string, page: PageQuery): Promise<R | undefined> {
    // The list's row is read in the same statement (no row at all: not the owner's list), its replies policy taken
    // from it for each status. A literal policy let the planner drop the other policies' branches, but cost a round
    // trip for the row first; read from the row, a policy's branch is skipped when its test `policy = '…'` fails.
    const values: unknown[] = [listId, ownerId];
    const p = pageSql(page, 's.id', values);
    const rows = await this.db.rows(
      this.shape.statement(
        `SELECT p.* FROM lists l
         LEFT JOIN LATERAL (SELECT ${this.shape.columns} FROM statuses s
           WHERE (${listRule('$1', '$2', 'l.replies_policy')}) AND ${listable()}${p.where}${p.orderLimit}) p ON true
         WHERE l.id = $1 AND l.account_id = $2 ORDER BY p.id ${p.order}`,
        values,
        ownerId,
        p.order,
      ),
      values,
      'prepared',
    );
    if (rows.length === 0) return undefined;
    return this.shape.collect(p.newestFirst(rows.filter((r) => r['id'] !== null && r['id'] !== undefined)), ownerId);
  }

  /**
   * Full-text search over statuses the viewer may read (the GIN index of 012_search.sql), newest first; optionally only
   * one account's. Words are matched whole, all of them.
   */
  async search(q: string, viewerId: string, opts: { limit: number; offset: number; accountId?: string }): Promise<Status[]> {
    const values: unknown[] = [q, viewerId];
    let where = `s.deleted_at IS NULL AND s.reblog_of_id IS NULL
      AND to_tsvector('simple', regexp_replace(s.content || ' ' || s.spoiler_text, '<[^>]*>', ' ', 'g')) @@ plainto_tsquery('simple', $1)
      AND ${visibleTo('$2')} AND ${quiet('$2')} AND ${listable()}`;
    if (opts.accountId) where += ` AND s.account_id = $${values.push(opts.accountId)}`;
    const rows = await this.db.rows<StatusRow>(
      `SELECT ${STATUS_COLUMNS} FROM statuses s WHERE ${where} ORDER BY s.id DESC LIMIT $${values.push(opts.limit)} OFFSET $${values.push(opts.offset)}`,
      values,
    );
    return rows.map(toStatus);
  }

  /** Hashtags whose name starts with `prefix` (case-folded) and that some public or unlisted status carries. */
  async searchTags(prefix: string, limit: number, offset: number): Promise<{ id: string; name: string }[]> {
    const like = tagKey(prefix).replace(/[\\%_]/g, (c) => `\\${c}`);
    const rows = await this.db.rows<{ id: string; name: string }>(
      `SELECT t.id::text AS id, t.name FROM tags t WHERE t.key LIKE $1
         AND EXISTS (SELECT 1 FROM status_tags st JOIN statuses s ON s.id = st.status_id WHERE st.tag_id = t.id AND s.deleted_at IS NULL AND s.visibility <= 1 AND ${listable()})
       ORDER BY t.key LIMIT $2 OFFSET $3`,
      [`${like}%`, limit, offset],
    );
    return rows;
  }

  /** Public statuses: all, local only, or remote only. */
  async publicTimeline(page: PageQuery, scope: 'all' | 'local' | 'remote', viewerId: string | null = null, onlyMedia = false): Promise<R> {
    const values: unknown[] = [];
    const where = `${PUBLIC_RULE}${scope === 'local' ? ' AND s.local' : scope === 'remote' ? ' AND NOT s.local' : ''}${viewerId ? ` AND ${quiet(`$${values.push(viewerId)}`)} AND ${inChosenLanguage(`$${values.length}`)}` : ''}${onlyMedia ? HAS_MEDIA : ''}`;
    return this.feed(where, values, page, viewerId);
  }

  /**
   * Public statuses with a hashtag, or with any of `any` besides it, which also carry every tag of `all` and none
   * of `none` (Mastodon's any[]/all[]/none[]).
   */
  async tagged(
    tag: string,
    page: PageQuery,
    scope: 'all' | 'local' | 'remote',
    viewerId: string | null = null,
    more: { any?: readonly string[]; all?: readonly string[]; none?: readonly string[]; onlyMedia?: boolean } = {},
  ): Promise<R> {
    const values: unknown[] = [[tag, ...(more.any ?? [])].map(tagKey)];
    const has = (param: string) => `SELECT st.status_id FROM status_tags st JOIN tags t ON t.id = st.tag_id WHERE t.key = ANY(${param}::text[])`;
    const single = !more.any?.length;
    // One tag (as clients ask): the page is read from the tag's index, newest first, each row tested as it is taken.
    // Read from the statuses instead, a page of a tag on one post in ten tested ~250 rows; of a rare tag, all of them.
    let where = `${TAG_RULE}${scope === 'local' ? ' AND s.local' : scope === 'remote' ? ' AND NOT s.local' : ''}${single ? '' : ` AND s.id IN (${has('$1')})`}`;
    for (const t of more.all ?? []) where += ` AND s.id IN (${has(`$${values.push([tagKey(t)])}`)})`;
    if (more.none?.length) where += ` AND s.id NOT IN (${has(`$${values.push(more.none.map(tagKey))}`)})`;
    if (viewerId) where += ` AND ${quiet(`$${values.push(viewerId)}`)} AND ${inChosenLanguage(`$${values.length}`)}`;
    if (more.onlyMedia) where += HAS_MEDIA;
    if (!single) return this.feed(where, values, page, viewerId);
    return this.page(`(${where}) AND ${listable()} AND st.tag_id = (SELECT t.id FROM tags t WHERE t.key = ($1::text[])[1])`, values, page, viewerId, {
      from: 'status_tags st JOIN statuses s ON s.id = st.status_id',
      pageColumn: 'st.status_id',
    });
  }

  /**
   * How many local public posts carry the hashtag: the totalItems of its collection for other servers (/tags/:name),
   * counted up to TAGGED_COUNT_MAX (anyone may ask, so a popular tag costs no unbounded scan per request).
   */
  async countLocalTagged(tag: string): Promise<number> {
    const r = await this.db.one<{ n: number }>(
      `SELECT count(*)::int AS n FROM (SELECT 1 FROM status_tags st JOIN statuses s ON s.id = st.status_id
       WHERE st.tag_id = (SELECT t.id FROM tags t WHERE t.key = $1) AND s.local AND ${TAG_RULE} LIMIT ${TAGGED_COUNT_MAX}) counted`,
      [tagKey(tag)],
    );
    return r?.n ?? 0;
  }

  /**
   * Public statuses about link `linkId` (status_links, migration 065) by accounts that opted in to discovery, newest
   * first: as a hashtag's feed, read from the link's index with each row tested as it is taken (Mastodon's LinkFeed).
   */
  async linked(linkId: string, page: PageQuery, viewerId: string | null = null): Promise<R> {
    const values: unknown[] = [linkId];
    let where = `${TAG_RULE} AND ${listable()} AND sl.link_id = $1
      AND EXISTS (SELECT 1 FROM accounts la WHERE la.id = s.account_id AND la.discoverable IS TRUE)`;
    if (viewerId) where += ` AND ${quiet(`$${values.push(viewerId)}`)} AND ${inChosenLanguage(`$${values.length}`)}`;
    return this.page(where, values, page, viewerId, { from: 'status_links sl JOIN statuses s ON s.id = sl.status_id', pageColumn: 'sl.status_id' });
  }

  /** A page of a feed across accounts: never a remote history post. */
  private feed(where: string, values: unknown[], page: PageQuery, viewerId: string | null): Promise<R> {
    return this.page(`(${where}) AND ${listable()}`, values, page, viewerId);
  }

  /**
   * A page of status rows `s` read from `at.from` (the statuses by default) where `where` holds, by the cursors on
   * `at.pageColumn` (s.id by default).
   */
  private async page(
    where: string,
    values: unknown[],
    page: PageQuery,
    viewerId: string | null,
    at: { readonly from?: string; readonly pageColumn?: string } = {},
  ): Promise<R> {
    const p = pageSql(page, at.pageColumn ?? 's.id', values);
    const sql = this.shape.statement(
      `SELECT ${this.shape.columns} FROM ${at.from ?? 'statuses s'} WHERE ${where}${p.where}${p.orderLimit}`,
      values,
      viewerId,
      p.order,
    );
    return this.shape.collect(p.newestFirst(await this.db.rows(sql, values, 'prepared')), viewerId);
  }
}
