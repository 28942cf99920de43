// Trends (migration 065): the ranked tags, statuses and links a supervised actor refreshes (actors/trends-refresher.ts)
// and the client API reads, the moderators' reviews, and the operator's two settings. A refresh reads the counts of
// the last two days (today's accounts against yesterday's, Mastodon's day buckets in UTC, by the time a status
// reached us: its id), scores them (trend-scores.ts) and rewrites each kind's rows in one transaction, so every node
// serves the same lists and no request scores anything.
import { CARD_COLUMNS, type PreviewCard, type PreviewCardRow, toCard } from './preview-cards.js';
import type { Database, Queryable } from './db.js';
import { addPublishersFor, publisherOf } from './trend-publishers.js';
import { LINK_OPTIONS, TAG_OPTIONS, peakScore, statusScore, type Peak, type PeakOptions } from './trend-scores.js';
import { authorNotSuspended, publicFeedable, quiet } from './visibility.js';

export type TrendKind = 'tag' | 'status' | 'link';

export interface TrendSettings {
  /** Trends are shown at all (off: the public routes answer []). */
  readonly enabled: boolean;
  /** Only approved items are shown (Mastodon's trendable_by_default off, its default); off: anything not rejected. */
  readonly reviewRequired: boolean;
}

export const TREND_SETTINGS_KEY = 'trends';
export const DEFAULT_TREND_SETTINGS: TrendSettings = Object.freeze({ enabled: true, reviewRequired: true });
const REFRESH_KEY = 'trends_refreshed_at';

/** One day of a tag's or link's History entity: strings, as Mastodon's serializer sends them. */
export interface HistoryDay {
  readonly day: string;
  readonly uses: string;
  readonly accounts: string;
}

/** A ranked item as a list shows it: its review state and, for tags and links, their history. */
export interface TrendRow {
  readonly itemId: string;
  readonly history: readonly HistoryDay[];
  /** No moderator has reviewed it. */
  readonly requiresReview: boolean;
  /** A moderator's verdict: true approved, false rejected, null none. */
  readonly trendable: boolean | null;
}

export interface TagTrendRow extends TrendRow {
  readonly name: string;
}

export interface LinkTrendRow extends TrendRow {
  readonly url: string;
  readonly title: string;
  /** The link's fetched preview card (migration 076), when there is one. */
  readonly card: PreviewCard | null;
}

const DAY_MS = 86_400_000;
const HISTORY_DAYS = 7;

/** The smallest status id of millisecond `ms` (timestamp_id: milliseconds << 16 | a sequence). */
function idAt(ms: number): string {
  return (BigInt(Math.floor(ms)) << 16n).toString();
}

/** Status `s` may count towards a tag or link trend (Mastodon's register): public, not history, author in good standing. */
const COUNTS = `s.deleted_at IS NULL AND s.visibility = 0 AND NOT s.history AND ${publicFeedable('s')}`;

/** Status `s` may trend itself (Mastodon's Trends::Statuses#eligible?). */
const STATUS_ELIGIBLE = `s.deleted_at IS NULL AND s.visibility = 0 AND NOT s.history AND s.reblog_of_id IS NULL
  AND s.in_reply_to_id IS NULL AND s.in_reply_to_uri IS NULL AND NOT s.sensitive AND s.spoiler_text = ''
  AND EXISTS (SELECT 1 FROM accounts sa WHERE sa.id = s.account_id AND sa.discoverable IS TRUE AND sa.sensitized_at IS NULL)
  AND ${publicFeedable('s')}`;

/**
 * SQL: trend row `t` may be shown publicly: ranked, and trendable as Mastodon's Tag#trendable? decides it: the
 * moderator's verdict, or without one, whether the settings row `cfg` lets unreviewed items trend. A link without a
 * verdict takes its publisher's (`pub`, joined by PUBLISHER), as Mastodon's PreviewCard#trendable?.
 */
function shown(kind: TrendKind): string {
  return `t.listed AND coalesce((SELECT r.trendable FROM trend_reviews r WHERE r.kind = '${kind}' AND r.item_id = t.item_id),
    ${kind === 'link' ? 'pub.trendable, ' : ''}NOT coalesce((cfg.value->>'reviewRequired')::boolean, true))`;
}

/** The publisher of link `l`, joined as `pub` (its columns null when there is none). */
const PUBLISHER = `LEFT JOIN publishers pub ON pub.id = ${publisherOf('l.url')}`;
/** A link's review columns: its own verdict and whether its publisher was reviewed. */
const LINK_REVIEW = (id: string) => `${REVIEW_COLUMNS('link', id)}, pub.reviewed_at IS NOT NULL AS publisher_reviewed`;

/** The trend settings' row, joined as `cfg` (its columns null when no operator changed them: the defaults). */
const ENABLED = `LEFT JOIN settings cfg ON cfg.key = '${TREND_SETTINGS_KEY}'`;
/** SQL: trends are on under `cfg`. */
const IS_ENABLED = `coalesce((cfg.value->>'enabled')::boolean, true)`;

const REVIEW_COLUMNS = (kind: TrendKind, id: string) => `(SELECT r.trendable FROM trend_reviews r WHERE r.kind = '${kind}' AND r.item_id = ${id}) AS trendable`;

type RankedRow = {
  item_id: string;
  history: HistoryDay[] | null;
  trendable: boolean | null;
};

function toRow<R extends RankedRow>(r: R): TrendRow {
  return { itemId: r.item_id, history: r.history ?? [], requiresReview: r.trendable === null, trendable: r.trendable };
}

type LinkRankedRow = RankedRow & { url: string; title: string; publisher_reviewed: boolean; card: PreviewCardRow | null };

/** Link `l`'s card as one JSON value (null without one, or when its fetch failed). */
const CARD = `(SELECT row_to_json(x) FROM (SELECT ${CARD_COLUMNS} FROM preview_cards c WHERE c.url = l.url AND c.error IS NULL) x) AS card`;

/** A link needs review while neither it nor its publisher has a verdict (Mastodon's PreviewCard#requires_review?). */
function toLinkRow(r: LinkRankedRow): LinkTrendRow {
  const row = toRow(r);
  return { ...row, requiresReview: row.requiresReview && !r.publisher_reviewed, url: r.url, title: r.title, card: r.card ? toCard(r.card) : null };
}

export class TrendStore {
  constructor(private readonly db: Database) {}

  async settings(): Promise<TrendSettings> {
    const r = await this.db.one<{ value: Partial<TrendSettings> }>('SELECT value FROM settings WHERE key = $1', [TREND_SETTINGS_KEY]);
    return Object.freeze({ ...DEFAULT_TREND_SETTINGS, ...r?.value });
  }

  /** Changes some settings (merged in the database, so two operators changing different ones both win). */
  async updateSettings(change: Partial<TrendSettings>): Promise<TrendSettings> {
    const r = await this.db.one<{ value: Partial<TrendSettings> }>(
      `INSERT INTO settings (key, value) VALUES ($1, $2::jsonb)
       ON CONFLICT (key) DO UPDATE SET value = settings.value || EXCLUDED.value, updated_at = now() RETURNING value`,
      [TREND_SETTINGS_KEY, JSON.stringify(change)],
    );
    return Object.freeze({ ...DEFAULT_TREND_SETTINGS, ...r!.value });
  }

  /**
   * Refreshes the trends if no node has in the last `everyMs` (the claim is a row of the settings table, so one node
   * of the cluster refreshes at a time); answers how long until the next refresh is due.
   */
  async refreshIfDue(at: Date, everyMs: number): Promise<{ refreshed: boolean; nextInMs: number }> {
    return this.db.tx(async (q) => {
      const claim = await q.query(
        `INSERT INTO settings (key, value) VALUES ($1, to_jsonb($2::timestamptz))
         ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()
           WHERE (settings.value #>> '{}')::timestamptz <= $2::timestamptz - make_interval(secs => $3 / 1000.0)
         RETURNING key`,
        [REFRESH_KEY, at.toISOString(), everyMs],
      );
      if (claim.rowCount === 0) {
        const last = await q.query<{ at: Date }>(`SELECT (value #>> '{}')::timestamptz AS at FROM settings WHERE key = $1`, [REFRESH_KEY]);
        const due = (last.rows[0]?.at.getTime() ?? 0) + everyMs - at.getTime();
        return { refreshed: false, nextInMs: Math.max(1_000, due) };
      }
      await this.refreshIn(q, at);
      return { refreshed: true, nextInMs: everyMs };
    });
  }

  /** Refreshes every kind's ranking as of `at` now (the actor's round, and tests with their own time). */
  async refresh(at: Date): Promise<void> {
    await this.db.tx(async (q) => {
      await q.query(
        `INSERT INTO settings (key, value) VALUES ($1, to_jsonb($2::timestamptz)) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`,
        [REFRESH_KEY, at.toISOString()],
      );
      await this.refreshIn(q, at);
    });
  }

  private async refreshIn(q: Queryable, at: Date): Promise<void> {
    // One refresh at a time: a second waits and then rewrites the rows the first wrote, from the same counts.
    await q.query(`SELECT pg_advisory_xact_lock(hashtext('stoa:trends'))`);
    const now = at.getTime();
    const today = Math.floor(now / DAY_MS) * DAY_MS;
    const bounds = [idAt(today - DAY_MS), idAt(today), idAt(now + 1)];
    // Tags: each use by a public status (not a boost) in the window, as today's or yesterday's account.
    await this.refreshPeaks(
      q,
      'tag',
      TAG_OPTIONS,
      now,
      (lo, hi) => `SELECT st.tag_id AS item_id, s.account_id, s.id AS at_id FROM statuses s JOIN status_tags st ON st.status_id = s.id
       WHERE s.id >= ${lo} AND s.id < ${hi} AND s.reblog_of_id IS NULL AND ${COUNTS}`,
      bounds,
      today,
    );
    // Links: the status that carries one and every boost of it, each by its own account (Mastodon's Links#register).
    await this.refreshPeaks(
      q,
      'link',
      LINK_OPTIONS,
      now,
      (lo, hi) => `SELECT sl.link_id AS item_id, s.account_id, s.id AS at_id FROM statuses s
         JOIN statuses o ON o.id = coalesce(s.reblog_of_id, s.id)
         JOIN status_links sl ON sl.status_id = o.id
       WHERE s.id >= ${lo} AND s.id < ${hi} AND ${COUNTS} AND o.deleted_at IS NULL AND o.visibility = 0 AND NOT o.sensitive
         AND o.spoiler_text = '' AND ${publicFeedable('o')}`,
      bounds,
      today,
    );
    await this.refreshStatuses(q, now);
  }

  /** Scores one kind of history-based trend and rewrites its rows, with the 7-day history of those listed. */
  private async refreshPeaks(
    q: Queryable,
    kind: 'tag' | 'link',
    o: PeakOptions,
    now: number,
    uses: (lo: string, hi: string) => string,
    bounds: string[],
    today: number,
  ): Promise<void> {
    const counts = await q.query<{ item_id: string; observed: number; yesterday: number }>(
      `SELECT item_id, count(DISTINCT account_id) FILTER (WHERE at_id >= $2)::int AS observed,
         count(DISTINCT account_id) FILTER (WHERE at_id < $2)::int AS yesterday
       FROM (${uses('$1', '$3')}) u GROUP BY item_id`,
      bounds,
    );
    const prev = await q.query<{ item_id: string; max_score: number; max_score_at: Date | null }>(
      'SELECT item_id, max_score, max_score_at FROM trends WHERE kind = $1',
      [kind],
    );
    const peaks = new Map<string, Peak>(prev.rows.map((r) => [r.item_id, { maxScore: r.max_score, maxScoreAt: r.max_score_at?.getTime() ?? null }]));
    const seen = new Map(counts.rows.map((r) => [r.item_id, r]));
    const rows: { id: string; score: number; maxScore: number; maxScoreAt: number | null; listed: boolean }[] = [];
    const ids = new Set([...seen.keys(), ...peaks.keys()]);
    if (kind === 'link') await addPublishersFor(q, [...ids]);
    for (const id of ids) {
      const c = seen.get(id);
      const s = peakScore(c?.observed ?? 0, c?.yesterday ?? 0, peaks.get(id) ?? null, now, o);
      // A peak is remembered through its cooldown even once it no longer lists.
      if (s.listed || (s.maxScoreAt !== null && s.maxScore > 0)) rows.push({ id, ...s });
    }
    await q.query('DELETE FROM trends WHERE kind = $1', [kind]);
    if (rows.length === 0) return;
    await q.query(
      `INSERT INTO trends (kind, item_id, score, max_score, max_score_at, listed, refreshed_at)
       SELECT $1, unnest($2::bigint[]), unnest($3::float8[]), unnest($4::float8[]), to_timestamp(unnest($5::float8[]) / 1000.0), unnest($6::boolean[]), $7`,
      [
        kind,
        rows.map((r) => r.id),
        rows.map((r) => r.score),
        rows.map((r) => r.maxScore),
        rows.map((r) => r.maxScoreAt),
        rows.map((r) => r.listed),
        new Date(now),
      ],
    );
    // The listed items' last 7 days (uses and distinct accounts per UTC day), newest first, as History entities.
    const from = idAt(today - (HISTORY_DAYS - 1) * DAY_MS);
    await q.query(
      `WITH days AS (SELECT $4::bigint - g * 86400 AS day FROM generate_series(0, ${HISTORY_DAYS - 1}) g),
         u AS (SELECT item_id, account_id, floor((at_id >> 16) / 86400000.0)::bigint * 86400 AS day FROM (${uses('$2', '$3')}) x
               WHERE item_id IN (SELECT item_id FROM trends WHERE kind = $1 AND listed)),
         h AS (SELECT t.item_id, jsonb_agg(jsonb_build_object('day', d.day::text,
                 'uses', (SELECT count(*) FROM u WHERE u.item_id = t.item_id AND u.day = d.day)::text,
                 'accounts', (SELECT count(DISTINCT account_id) FROM u WHERE u.item_id = t.item_id AND u.day = d.day)::text) ORDER BY d.day DESC) AS history
               FROM trends t CROSS JOIN days d WHERE t.kind = $1 AND t.listed GROUP BY t.item_id)
       UPDATE trends t SET history = h.history FROM h WHERE t.kind = $1 AND t.item_id = h.item_id`,
      [kind, from, idAt(now + 1), today / 1000],
    );
  }

  /** Scores the statuses that reached us in the last two days by their boosts and favourites. */
  private async refreshStatuses(q: Queryable, now: number): Promise<void> {
    const candidates = await q.query<{ id: string; interactions: number; created_at: Date }>(
      `SELECT s.id, (c.reblogs + c.favourites) AS interactions, s.created_at FROM statuses s JOIN status_counts c ON c.status_id = s.id
       WHERE s.id >= $1 AND s.id < $2 AND c.reblogs + c.favourites >= 5 AND ${STATUS_ELIGIBLE}`,
      [idAt(now - 2 * DAY_MS), idAt(now + 1)],
    );
    const rows = candidates.rows.map((r) => ({ id: r.id, ...statusScore(r.interactions, r.created_at.getTime(), now) })).filter((r) => r.listed);
    await q.query(`DELETE FROM trends WHERE kind = 'status'`);
    if (rows.length === 0) return;
    await q.query(`INSERT INTO trends (kind, item_id, score, listed, refreshed_at) SELECT 'status', unnest($1::bigint[]), unnest($2::float8[]), true, $3`, [
      rows.map((r) => r.id),
      rows.map((r) => r.score),
      new Date(now),
    ]);
  }

  /** Trending tags, best first: those shown to the public (staff: `all`, every listed one). Empty when trends are off. */
  async tags(limit: number, offset: number, all = false): Promise<TagTrendRow[]> {
    const rows = await this.db.rows<RankedRow & { name: string }>(
      `SELECT t.item_id, t.history, g.name, ${REVIEW_COLUMNS('tag', 't.item_id')}
       FROM trends t JOIN tags g ON g.id = t.item_id ${ENABLED}
       WHERE t.kind = 'tag' AND ${all ? 't.listed' : `${IS_ENABLED} AND ${shown('tag')}`}
       ORDER BY t.score DESC, t.item_id DESC LIMIT $1 OFFSET $2`,
      [limit, offset],
    );
    return rows.map((r) => ({ ...toRow(r), name: r.name }));
  }

  /** Trending links, best first, as tags(). */
  async links(limit: number, offset: number, all = false): Promise<LinkTrendRow[]> {
    const rows = await this.db.rows<LinkRankedRow>(
      `SELECT t.item_id, t.history, l.url, l.title, ${CARD}, ${LINK_REVIEW('t.item_id')}
       FROM trends t JOIN links l ON l.id = t.item_id ${PUBLISHER} ${ENABLED}
       WHERE t.kind = 'link' AND ${all ? 't.listed' : `${IS_ENABLED} AND ${shown('link')}`}
       ORDER BY t.score DESC, t.item_id DESC LIMIT $1 OFFSET $2`,
      [limit, offset],
    );
    return rows.map(toLinkRow);
  }

  /**
   * Trending statuses' ids, best first, as tags(); a signed-in viewer's are without the accounts they block or mute or
   * that block them (Mastodon's filtered_for).
   */
  async statuses(limit: number, offset: number, viewerId: string | null, all = false): Promise<TrendRow[]> {
    const values: unknown[] = [limit, offset];
    const viewer = viewerId === null ? '' : ` AND ${quiet(`$${values.push(viewerId)}`)}`;
    const rows = await this.db.rows<RankedRow>(
      `SELECT t.item_id, t.history, ${REVIEW_COLUMNS('status', 't.item_id')}
       FROM trends t JOIN statuses s ON s.id = t.item_id ${ENABLED}
       WHERE t.kind = 'status' AND s.deleted_at IS NULL AND ${authorNotSuspended('s')} AND ${all ? 't.listed' : `${IS_ENABLED} AND ${shown('status')}`}${viewer}
       ORDER BY t.score DESC, t.item_id DESC LIMIT $1 OFFSET $2`,
      values,
    );
    return rows.map(toRow);
  }

  /** A tag by id with its review state and history (approve/reject answers with it); undefined: no such tag. */
  async tag(id: string): Promise<TagTrendRow | undefined> {
    const r = await this.db.one<RankedRow & { name: string }>(
      `SELECT g.id AS item_id, (SELECT t.history FROM trends t WHERE t.kind = 'tag' AND t.item_id = g.id) AS history, g.name,
         ${REVIEW_COLUMNS('tag', 'g.id')} FROM tags g WHERE g.id = $1`,
      [id],
    );
    return r && { ...toRow(r), name: r.name };
  }

  /** A link by id, as tag(). */
  async link(id: string): Promise<LinkTrendRow | undefined> {
    const r = await this.db.one<LinkRankedRow>(
      `SELECT l.id AS item_id, (SELECT t.history FROM trends t WHERE t.kind = 'link' AND t.item_id = l.id) AS history, l.url, l.title, ${CARD},
         ${LINK_REVIEW('l.id')} FROM links l ${PUBLISHER} WHERE l.id = $1`,
      [id],
    );
    return r && toLinkRow(r);
  }

  /** A link by its normalized URL, if it is a trend shown to the public (Mastodon's link timeline asks that). */
  async shownLink(url: string): Promise<string | undefined> {
    const r = await this.db.one<{ id: string }>(
      `SELECT l.id FROM links l JOIN trends t ON t.kind = 'link' AND t.item_id = l.id ${PUBLISHER} ${ENABLED}
       WHERE l.url = $1 AND ${IS_ENABLED} AND ${shown('link')}`,
      [url],
    );
    return r?.id;
  }

  /** Records a moderator's review. */
  async review(kind: TrendKind, itemId: string, trendable: boolean, by: string): Promise<void> {
    await this.db.exec(
      `INSERT INTO trend_reviews (kind, item_id, trendable, reviewed_by) VALUES ($1, $2, $3, $4)
       ON CONFLICT (kind, item_id) DO UPDATE SET trendable = EXCLUDED.trendable, reviewed_by = EXCLUDED.reviewed_by, reviewed_at = now()`,
      [kind, itemId, trendable, by],
    );
  }
}
