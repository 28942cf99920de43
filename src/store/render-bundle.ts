// Everything a page of statuses needs to be rendered, in one statement (issue 19: at most 3 round trips a page):
// the statuses asked for, the statuses they boost, the quoted statuses the viewer may read, their authors and
// mentioned accounts (with the authors' follower/following/status counts, kept by migration 053's triggers), applications, counts, the viewer's flags,
// media, polls with the viewer's votes, and reactions. Rows come back as JSON arrays (ids cast to text: our 64-bit ids
// do not fit a JavaScript number) and are read through the same mappers as the stores' own queries.
import { type Account, ACCOUNT_COLUMNS, type AccountDbRow, toAccount } from './accounts.js';
import type { Database } from './db.js';
import { type Media, type MediaRow, toMedia } from './media.js';
import { type Poll, type PollRow, toPoll } from './polls.js';
import { CARD_COLUMNS, type PreviewCard, type PreviewCardRow, toCard } from './preview-cards.js';
import type { ReactionSummary } from './reactions.js';
import { STATUS_COLUMNS, type Status, type StatusRow, toStatus } from './statuses.js';
import { visibleTo } from './visibility.js';

/** What an account entity shows of our own records (entities/account.ts AccountCounts). */
export interface AccountCounts {
  readonly followers: number;
  readonly following: number;
  readonly statuses: number;
  /** The last status's day (UTC, YYYY-MM-DD), as the entity shows it. */
  readonly lastStatusDay: string | null;
}

export interface StatusCounts {
  readonly replies: number;
  readonly reblogs: number;
  readonly favourites: number;
  readonly quotes: number;
}

export interface ViewerFlags {
  readonly favourited: ReadonlySet<string>;
  readonly reblogged: ReadonlySet<string>;
  readonly bookmarked: ReadonlySet<string>;
  readonly pinned: ReadonlySet<string>;
  readonly muted: ReadonlySet<string>;
}

export interface RenderBundle {
  /** The statuses asked for (but those held), those they boost, and the quoted ones the viewer may read. */
  readonly statuses: ReadonlyMap<string, Status>;
  /** Quoted statuses (of those asked for) that the viewer may read. */
  readonly quotesShown: ReadonlySet<string>;
  /** Quoted statuses that were deleted. */
  readonly quotesDeleted: ReadonlySet<string>;
  readonly accounts: ReadonlyMap<string, Account>;
  /** For the authors and the extra accounts asked for. */
  readonly accountCounts: ReadonlyMap<string, AccountCounts>;
  readonly apps: ReadonlyMap<string, { name: string; website: string | null }>;
  readonly counts: ReadonlyMap<string, StatusCounts>;
  /** null without a viewer. */
  readonly flags: ViewerFlags | null;
  readonly media: ReadonlyMap<string, Media[]>;
  /** Status id → its link's card (migration 076), for the statuses whose rows the bundle has. */
  readonly cards: ReadonlyMap<string, PreviewCard>;
  readonly polls: ReadonlyMap<string, Poll>;
  /** Poll id → the viewer's choices; null without a viewer. */
  readonly ownVotes: ReadonlyMap<string, number[]> | null;
  readonly reactions: ReadonlyMap<string, ReactionSummary[]>;
}

const ID_COLUMNS = ['id', 'account_id', 'in_reply_to_id', 'in_reply_to_account_id', 'reblog_of_id', 'quote_of_id', 'application_id'];
const JSON_STATUS_COLUMNS = ID_COLUMNS.reduce((cols, c) => cols.replace(new RegExp(`\\bs\\.${c}\\b`), `s.${c}::text AS ${c}`), STATUS_COLUMNS);
const JSON_ACCOUNT_COLUMNS = ACCOUNT_COLUMNS.replace(/^a\.id,/, 'a.id::text AS id,');

/**
 * No one signed in is asked as account 0, which no account is: visibleTo('$2') then says what visibleTo(null) says
 * (nobody follows, is mentioned by or is blocked by account 0), it has no flags or votes, and no reaction is its. One
 * statement shape for both keeps the planner's work the same, without a branch on the parameter.
 */
export const NOBODY = '0';

/**
 * $1 the statuses asked for, $2 the viewer (or NOBODY), $3 more accounts to load with counts (notification senders),
 * $4 statuses of $1 the caller holds already rendered (the rendered-status cache, for the very rows it read): their
 * rows, authors, mentioned accounts and attachments are not read again, only what changes per page (counts, the
 * viewer's flags, polls and votes, reactions). With a warm cache that halves the statement (issue 19). $5 accounts the
 * caller holds rendered (the rendered-account cache): their rows are not read, only their counts.
 */
function bundleSql(): string {
  const v = '$2::bigint';
  // Each set of ids is one array (an InitPlan; the cast keeps `= ANY((SELECT ...))` from being read as a sublink), so every lookup below is an index scan with = ANY(array), as the
  // stores' own queries are; a CTE relation joined with IN was planned as a hash join over whole tables.
  const ids = '(SELECT a FROM ids)::bigint[]';
  return `WITH quoted AS (SELECT coalesce(array_agg(s.quote_of_id), '{}') AS a FROM statuses s WHERE s.id = ANY($1::bigint[]) AND s.quote_of_id IS NOT NULL),
  qshown AS (SELECT coalesce(array_agg(s.id), '{}') AS a FROM statuses s WHERE s.id = ANY((SELECT a FROM quoted)::bigint[])
    AND ${visibleTo(v)}),
  firsts AS (SELECT $1::bigint[] || (SELECT a FROM qshown) AS a),
  ids AS (SELECT (SELECT a FROM firsts) || coalesce(array_agg(s.reblog_of_id), '{}') AS a FROM statuses s
    WHERE s.id = ANY((SELECT a FROM firsts)::bigint[]) AND s.reblog_of_id IS NOT NULL),
  st AS (SELECT ${JSON_STATUS_COLUMNS} FROM statuses s WHERE s.id = ANY(${ids}) AND s.id <> ALL($4::bigint[])),
  counted AS (SELECT ARRAY(SELECT DISTINCT x FROM unnest(ARRAY(SELECT s.account_id FROM statuses s WHERE s.id = ANY(${ids})) || $3::bigint[]) x) AS a),
  acc AS (SELECT ARRAY(SELECT account_id::bigint FROM st) || $3::bigint[] || coalesce(array_agg(m.account_id), '{}') AS a FROM status_mentions m
    WHERE m.status_id = ANY(${ids}) AND m.status_id <> ALL($4::bigint[]))
  ${withOwnVotes(
    `(SELECT json_agg(st) FROM st) AS statuses,
    ARRAY(SELECT unnest(a)::text FROM qshown) AS quotes_shown,
    ARRAY(SELECT s.id::text FROM statuses s WHERE s.id = ANY((SELECT a FROM quoted)::bigint[]) AND s.deleted_at IS NOT NULL) AS quotes_deleted,
    (SELECT json_agg(x) FROM (SELECT ${JSON_ACCOUNT_COLUMNS} FROM accounts a WHERE a.id = ANY((SELECT x.a FROM acc x)::bigint[])
      AND a.id <> ALL($5::bigint[])) x) AS accounts,
    (SELECT json_agg(x) FROM (SELECT o.id::text AS id, o.name, o.website FROM oauth_apps o WHERE o.id = ANY(ARRAY(SELECT application_id::bigint FROM st))) x) AS apps,
    (SELECT json_agg(x ORDER BY x.status_id, x.position, x.id) FROM (SELECT m.id::text AS id, m.account_id::text AS account_id, m.status_id::text AS status_id,
        m.type, m.content_type, m.file_name, m.file_size::text AS file_size, m.width, m.height, m.description, m.focus_x, m.focus_y, m.remote_url, m.position,
        m.preview_file_name, m.small_width, m.small_height, m.blurhash, m.processing, m.meta, m.processing_error
      FROM media_attachments m WHERE m.status_id = ANY(${ids}) AND m.status_id <> ALL($4::bigint[]) AND NOT m.removed) x) AS media,
    (SELECT json_agg(x) FROM (SELECT sc.status_id::text AS status_id, ${CARD_COLUMNS} FROM status_cards sc JOIN preview_cards c ON c.id = sc.card_id
      WHERE sc.status_id = ANY(${ids}) AND sc.status_id <> ALL($4::bigint[]) AND c.error IS NULL) x) AS cards,
    ${dynamicItems('ids.a', v, 'counted.a', 'ids.a')}`,
    'ids.a',
    v,
    { items: 'ids, counted', votes: 'ids' },
  )}`;
}

/**
 * The parts of a page that change without its statuses changing, the same for both statements: counts, the viewer's
 * flags, polls (the votes: withOwnVotes), reactions. `ids` the statuses (an SQL array), `v` the viewer, `counted` the accounts
 * whose counts are shown, `polled` the statuses whose polls are read.
 */
export function dynamicItems(ids: string, v: string, counted: string, polled: string): string {
  // Counts as the text of one flat JSON array, five values a row (toBundle reads it with rowsOf): json_agg of objects cost twice
  // the PostgreSQL time (~0.55 ms against ~0.28 for a grouped page's 190 accounts), and JSON.parse reads it natively.
  // An account or status without a row has none here: its counts are 0, as they would be from a zeroed row. The last
  // status's day is a day number (UTC), written as a date by toBundle: to_char was ~a third of the text's cost.
  return `(SELECT '[' || string_agg('"' || c.account_id || '",' || c.followers || ',' || c.following || ',' || c.statuses || ','
        || coalesce(((c.last_status_at AT TIME ZONE 'UTC')::date - DATE '1970-01-01')::text, 'null'), ',') || ']'
      FROM account_counts c WHERE c.account_id = ANY(${counted})) AS account_counts,
    (SELECT '[' || string_agg('"' || c.status_id || '",' || c.replies || ',' || c.reblogs || ',' || c.favourites || ',' || c.quotes, ',') || ']'
      FROM status_counts c WHERE c.status_id = ANY(${ids})) AS counts,
    ARRAY(SELECT f.status_id::text FROM favourites f WHERE f.account_id = ${v} AND f.status_id = ANY(${ids})) AS favourited,
    ARRAY(SELECT r.reblog_of_id::text FROM statuses r WHERE r.account_id = ${v} AND r.reblog_of_id = ANY(${ids}) AND r.deleted_at IS NULL) AS reblogged,
    ARRAY(SELECT b.status_id::text FROM bookmarks b WHERE b.account_id = ${v} AND b.status_id = ANY(${ids})) AS bookmarked,
    ARRAY(SELECT p.status_id::text FROM pins p WHERE p.account_id = ${v} AND p.status_id = ANY(${ids})) AS pinned,
    -- The rest only when the page has some (migration 058: a function's plan is set up only when it is called).
    CASE WHEN EXISTS (SELECT 1 FROM thread_mutes t0 WHERE t0.account_id = ${v}) THEN page_muted_threads(${ids}, ${v}) ELSE '{}'::text[] END AS muted,
    CASE WHEN EXISTS (SELECT 1 FROM polls p0 WHERE p0.status_id = ANY(${polled})) THEN page_polls(${polled}) END AS polls,
    CASE WHEN EXISTS (SELECT 1 FROM status_reactions r0 WHERE r0.status_id = ANY(${ids})) THEN page_reactions(${ids}, ${v}) END AS reactions`;
}

/**
 * `SELECT items` (dynamicItems among them) with the viewer's votes added, read only when the page has polls: the polls
 * are looked up once, not once more for the votes (an index search per status, ~30 µs of a 50-status page). OFFSET 0
 * keeps the items a subquery of their own, so that `polls` is not written (and run) twice. `from`: the one-row
 * relations the items (and the votes) read their arrays from (`ids.a`), joined rather than each read by its own
 * subquery: PostgreSQL sets up a node per subquery on every execution. A relation named twice is materialised, so
 * the votes name only the one they read.
 */
export function withOwnVotes(items: string, polled: string, v: string, from?: { readonly items: string; readonly votes: string }): string {
  const rel = from ? ` FROM ${from.items}` : '';
  return `SELECT d.*, CASE WHEN d.polls IS NOT NULL THEN page_own_votes(${polled}, ${v}) END AS own_votes FROM (SELECT ${items}${rel} OFFSET 0) d${from ? `, ${from.votes}` : ''}`;
}

/**
 * Only the dynamic parts (dynamicItems), for a page whose statuses are all held rendered (views/status-views.ts
 * fromRefs): $1 the statuses, $2 the viewer (or NOBODY), $3 the accounts whose counts are shown, $4 the statuses
 * with a poll. Nothing is derived from the statuses' rows, which the caller holds: a quarter of the full bundle's
 * PostgreSQL time for a page of twenty held statuses (issue 19).
 */
const DYNAMIC_SQL = withOwnVotes(dynamicItems('$1::bigint[]', '$2::bigint', '$3::bigint[]', '$4::bigint[]'), '$4::bigint[]', '$2::bigint');

export interface BundleRow {
  [k: string]: unknown;
  statuses?: StatusRow[] | null;
  quotes_shown?: string[];
  quotes_deleted?: string[];
  accounts?: AccountDbRow[] | null;
  /** A flat JSON array: id, followers, following, statuses, last status's day (UTC) or null; per account. */
  account_counts: string | null;
  apps?: { id: string; name: string; website: string | null }[] | null;
  /** A flat JSON array: id, replies, reblogs, favourites, quotes; per status. */
  counts: string | null;
  favourited: string[];
  reblogged: string[];
  bookmarked: string[];
  pinned: string[];
  muted: string[];
  media?: MediaRow[] | null;
  cards?: (PreviewCardRow & { status_id: string })[] | null;
  polls: PollRow[] | null;
  own_votes: { poll_id: string; choices: number[] }[] | null;
  reactions: { status_id: string; emoji: string; url: string | null; n: number; me: boolean; accounts: string[] }[] | null;
}

/** JSON carries timestamps as text: the mappers want Dates. */
function dates<R extends Record<string, unknown>>(r: R, keys: readonly string[]): R {
  const out: Record<string, unknown> = { ...r };
  for (const k of keys) if (typeof out[k] === 'string') out[k] = new Date(out[k] as string);
  return out as R;
}

const STATUS_DATES = ['created_at', 'edited_at', 'deleted_at'];
const ACCOUNT_DATES = ['created_at', 'updated_at', 'published_at', 'fetched_at', 'deleted_at', 'suspended_at', 'silenced_at', 'sensitized_at'];

export class RenderBundleStore {
  private readonly sql = bundleSql();

  constructor(private readonly db: Database) {}

  /**
   * One round trip: what rendering `statusIds` (and showing `accountIds`) as `viewerId` needs. Of the statuses in
   * `held` (the caller's own rows, rendered already) the bundle has no row, author, mentioned accounts or media; of
   * the accounts in `heldAccounts` no row (their counts are read if asked for).
   */
  async load(
    statusIds: readonly string[],
    viewerId: string | null,
    accountIds: readonly string[] = [],
    held: readonly string[] = [],
    heldAccounts: readonly string[] = [],
  ): Promise<RenderBundle> {
    return toBundle((await this.db.one<BundleRow>(this.sql, [statusIds, viewerId ?? NOBODY, accountIds, held, heldAccounts], 'prepared'))!, viewerId);
  }

  /**
   * One round trip for a page whose statuses (`statusIds`, boosted ones included) are all held rendered: only what
   * changes per page (DYNAMIC_SQL). `accountIds` the accounts whose counts are shown, `polled` the statuses with a poll.
   */
  async dynamics(statusIds: readonly string[], viewerId: string | null, accountIds: readonly string[], polled: readonly string[]): Promise<RenderBundle> {
    return toBundle((await this.db.one<BundleRow>(DYNAMIC_SQL, [statusIds, viewerId ?? NOBODY, accountIds, polled], 'prepared'))!, viewerId);
  }
}

const days = new Map<number, string>();

/** Day `n` since 1970-01-01 (UTC) as YYYY-MM-DD; the few days a server's pages show are kept. */
function dayText(n: number | null): string | null {
  if (n === null) return null;
  let t = days.get(n);
  if (t === undefined) {
    if (days.size >= 4096) days.clear();
    days.set(n, (t = new Date(n * 86_400_000).toISOString().slice(0, 10)));
  }
  return t;
}

/** A flat JSON array of `width` values a row (dynamicItems' counts), as a map of what `entry` makes of each row. */
function rowsOf<V>(text: string | null, width: number, entry: (x: readonly unknown[], i: number) => [string, V]): Map<string, V> {
  const out = new Map<string, V>();
  if (text === null) return out;
  const x = JSON.parse(text) as unknown[];
  for (let i = 0; i < x.length; i += width) {
    const [k, v] = entry(x, i);
    out.set(k, v);
  }
  return out;
}

export function toBundle(r: BundleRow, viewerId: string | null): RenderBundle {
  const media = new Map<string, Media[]>();
  for (const row of r.media ?? []) {
    const m = toMedia(row);
    const list = media.get(m.statusId!) ?? [];
    list.push(m);
    media.set(m.statusId!, list);
  }
  const polls = new Map((r.polls ?? []).map((p) => [p.status_id, toPoll(dates(p, ['expires_at']))]));
  const reactions = new Map<string, ReactionSummary[]>();
  for (const x of r.reactions ?? []) {
    const list = reactions.get(x.status_id) ?? [];
    list.push({ name: x.emoji, url: x.url, count: x.n, me: x.me, accountIds: x.accounts });
    reactions.set(x.status_id, list);
  }
  return {
    statuses: new Map((r.statuses ?? []).map((s) => [s.id, toStatus(dates(s, STATUS_DATES))])),
    quotesShown: new Set(r.quotes_shown ?? []),
    quotesDeleted: new Set(r.quotes_deleted ?? []),
    accounts: new Map((r.accounts ?? []).map((a) => [a.id, toAccount(dates(a, ACCOUNT_DATES))])),
    accountCounts: rowsOf(r.account_counts, 5, (x, i) => [
      x[i] as string,
      {
        followers: x[i + 1] as number,
        following: x[i + 2] as number,
        statuses: x[i + 3] as number,
        lastStatusDay: dayText(x[i + 4] as number | null),
      },
    ]),
    apps: new Map((r.apps ?? []).map((a) => [a.id, { name: a.name, website: a.website }])),
    counts: rowsOf(r.counts, 5, (x, i) => [
      x[i] as string,
      { id: x[i] as string, replies: x[i + 1] as number, reblogs: x[i + 2] as number, favourites: x[i + 3] as number, quotes: x[i + 4] as number },
    ]),
    flags:
      viewerId === null
        ? null
        : {
            favourited: new Set(r.favourited),
            reblogged: new Set(r.reblogged),
            bookmarked: new Set(r.bookmarked),
            pinned: new Set(r.pinned),
            muted: new Set(r.muted),
          },
    media,
    cards: new Map((r.cards ?? []).map((c) => [c.status_id, toCard(c)])),
    polls,
    ownVotes: viewerId === null ? null : new Map((r.own_votes ?? []).map((v) => [v.poll_id, v.choices])),
    reactions,
  };
}
