// Link preview cards (migration 076): one card per URL, shared by every status linking it (status_cards), and the
// queue of statuses waiting for theirs (card_jobs, claimed under a lease by actors/card-fetcher.ts on any node).
import type { Database, Queryable } from './db.js';

export type CardType = 'link' | 'photo' | 'video' | 'rich';

/** What a fetch found, as stored. */
export interface CardContent {
  readonly title: string;
  readonly description: string;
  readonly type: CardType;
  readonly authorName: string;
  readonly authorUrl: string;
  readonly providerName: string;
  readonly providerUrl: string;
  readonly html: string;
  readonly width: number;
  readonly height: number;
  readonly imageRemoteUrl: string | null;
  readonly imageDescription: string;
  readonly embedUrl: string;
  readonly language: string | null;
  readonly publishedAt: Date | null;
}

/** Our copy of a card's image (media storage), its size and blurhash. */
export interface CardImage {
  readonly file: string;
  readonly contentType: string;
  readonly width: number;
  readonly height: number;
  readonly blurhash: string | null;
}

export interface PreviewCard extends CardContent {
  readonly id: string;
  readonly url: string;
  readonly image: CardImage | null;
  readonly fetchedAt: Date | null;
  readonly error: string | null;
}

export interface PreviewCardRow {
  [k: string]: unknown;
  id: string;
  url: string;
  title: string;
  description: string;
  type: CardType;
  author_name: string;
  author_url: string;
  provider_name: string;
  provider_url: string;
  html: string;
  width: number;
  height: number;
  image_remote_url: string | null;
  image_file: string | null;
  image_content_type: string | null;
  image_width: number | null;
  image_height: number | null;
  image_description: string;
  blurhash: string | null;
  embed_url: string;
  language: string | null;
  published_at: Date | string | null;
  fetched_at: Date | string | null;
  error: string | null;
}

/** The columns toCard reads, of preview_cards as `c` (ids as text: they travel in JSON too). */
export const CARD_COLUMNS = `c.id::text AS id, c.url, c.title, c.description, c.type, c.author_name, c.author_url, c.provider_name,
  c.provider_url, c.html, c.width, c.height, c.image_remote_url, c.image_file, c.image_content_type, c.image_width, c.image_height,
  c.image_description, c.blurhash, c.embed_url, c.language, c.published_at, c.fetched_at, c.error`;

const date = (v: Date | string | null): Date | null => (v === null ? null : v instanceof Date ? v : new Date(v));

export function toCard(r: PreviewCardRow): PreviewCard {
  return {
    id: r.id,
    url: r.url,
    title: r.title,
    description: r.description,
    type: r.type,
    authorName: r.author_name,
    authorUrl: r.author_url,
    providerName: r.provider_name,
    providerUrl: r.provider_url,
    html: r.html,
    width: r.width,
    height: r.height,
    imageRemoteUrl: r.image_remote_url,
    image:
      r.image_file && r.image_content_type
        ? { file: r.image_file, contentType: r.image_content_type, width: r.image_width ?? 0, height: r.image_height ?? 0, blurhash: r.blurhash }
        : null,
    imageDescription: r.image_description,
    embedUrl: r.embed_url,
    language: r.language,
    publishedAt: date(r.published_at),
    fetchedAt: date(r.fetched_at),
    error: r.error,
  };
}

/** Queues status `statusId`'s card for `url` (in the transaction that stores the status; migration 076 wakes the fetchers). */
export async function queueCard(q: Queryable, statusId: string, url: string): Promise<void> {
  await q.query('INSERT INTO card_jobs (status_id, url) VALUES ($1, $2) ON CONFLICT DO NOTHING', [statusId, url]);
}

/**
 * An edited status's card follows its link (Mastodon's UpdateStatusService resets it): a card of another URL is taken
 * off, and a new link is queued (a fetch under way for the old one then finds its job gone and shows nothing).
 */
export async function requeueCard(q: Queryable, statusId: string, url: string | null): Promise<void> {
  const shown = await q.query<{ url: string }>('SELECT c.url FROM status_cards sc JOIN preview_cards c ON c.id = sc.card_id WHERE sc.status_id = $1', [
    statusId,
  ]);
  const current = shown.rows[0]?.url ?? null;
  if (current === url) return;
  if (current !== null) await q.query('DELETE FROM status_cards WHERE status_id = $1', [statusId]);
  if (url === null) await q.query('DELETE FROM card_jobs WHERE status_id = $1', [statusId]);
  else {
    await q.query(
      `INSERT INTO card_jobs (status_id, url) VALUES ($1, $2)
       ON CONFLICT (status_id) DO UPDATE SET url = EXCLUDED.url, queued_at = now(), lease_owner = NULL, lease_until = NULL`,
      [statusId, url],
    );
  }
}

export interface CardJob {
  readonly statusId: string;
  readonly url: string;
  /** The status has attachments or a poll (Mastodon shows no card then), or is gone. */
  readonly skip: boolean;
}

/** How long a claimed job is held: longer than a page, its oEmbed and its image can take together. */
const LEASE = '2 minutes';

export class PreviewCardStore {
  constructor(private readonly db: Database) {}

  /** Takes up to `limit` waiting jobs (or ones whose lease ran out) for `owner`, oldest first. */
  async claim(owner: string, limit: number): Promise<CardJob[]> {
    const rows = await this.db.rows<{ status_id: string; url: string; skip: boolean }>(
      `UPDATE card_jobs j SET lease_owner = $1, lease_until = now() + interval '${LEASE}'
       FROM (SELECT status_id FROM card_jobs WHERE lease_until IS NULL OR lease_until <= now()
             ORDER BY queued_at LIMIT $2 FOR UPDATE SKIP LOCKED) t
       WHERE j.status_id = t.status_id
       RETURNING j.status_id::text AS status_id, j.url,
         NOT EXISTS (SELECT 1 FROM statuses s WHERE s.id = j.status_id AND s.deleted_at IS NULL)
         OR EXISTS (SELECT 1 FROM media_attachments m WHERE m.status_id = j.status_id)
         OR EXISTS (SELECT 1 FROM polls p WHERE p.status_id = j.status_id) AS skip`,
      [owner, limit],
    );
    return rows.map((r) => ({ statusId: r.status_id, url: r.url, skip: r.skip }));
  }

  /** Milliseconds until a held job's lease runs out (0: one is waiting now), or null when none waits. */
  async nextDueInMs(): Promise<number | null> {
    const r = await this.db.one<{ ms: number | null }>(
      `SELECT (extract(epoch FROM (min(coalesce(lease_until, now())) - now())) * 1000)::float8 AS ms FROM card_jobs`,
    );
    return r?.ms == null ? null : Math.max(0, r.ms);
  }

  async byUrl(url: string): Promise<PreviewCard | undefined> {
    const r = await this.db.one<PreviewCardRow>(`SELECT ${CARD_COLUMNS} FROM preview_cards c WHERE c.url = $1`, [url]);
    return r && toCard(r);
  }

  async byId(id: string): Promise<PreviewCard | undefined> {
    const r = await this.db.one<PreviewCardRow>(`SELECT ${CARD_COLUMNS} FROM preview_cards c WHERE c.id = $1`, [id]);
    return r && toCard(r);
  }

  /** Records a fetch of `url` (found: its content and image; not: why), replacing what was there; the card and its old image file. */
  async record(
    url: string,
    found: { content: CardContent; image: CardImage | null } | { error: string },
  ): Promise<{ card: PreviewCard; oldFile: string | null }> {
    const c = 'content' in found ? found.content : null;
    const i = 'content' in found ? found.image : null;
    const r = (await this.db.one<PreviewCardRow & { old_file: string | null }>(
      `WITH old AS (SELECT image_file FROM preview_cards WHERE url = $1 FOR UPDATE)
       INSERT INTO preview_cards AS c (url, title, description, type, author_name, author_url, provider_name, provider_url, html, width, height,
         image_remote_url, image_file, image_content_type, image_width, image_height, image_description, blurhash, embed_url, language,
         published_at, fetched_at, error)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, now(), $22)
       ON CONFLICT (url) DO UPDATE SET title = EXCLUDED.title, description = EXCLUDED.description, type = EXCLUDED.type,
         author_name = EXCLUDED.author_name, author_url = EXCLUDED.author_url, provider_name = EXCLUDED.provider_name,
         provider_url = EXCLUDED.provider_url, html = EXCLUDED.html, width = EXCLUDED.width, height = EXCLUDED.height,
         image_remote_url = EXCLUDED.image_remote_url, image_file = EXCLUDED.image_file, image_content_type = EXCLUDED.image_content_type,
         image_width = EXCLUDED.image_width, image_height = EXCLUDED.image_height, image_description = EXCLUDED.image_description,
         blurhash = EXCLUDED.blurhash, embed_url = EXCLUDED.embed_url, language = EXCLUDED.language,
         published_at = EXCLUDED.published_at, fetched_at = now(), error = EXCLUDED.error
       RETURNING ${CARD_COLUMNS}, (SELECT image_file FROM old) AS old_file`,
      [
        url,
        c?.title ?? '',
        c?.description ?? '',
        c?.type ?? 'link',
        c?.authorName ?? '',
        c?.authorUrl ?? '',
        c?.providerName ?? '',
        c?.providerUrl ?? '',
        c?.html ?? '',
        c?.width ?? 0,
        c?.height ?? 0,
        c?.imageRemoteUrl ?? null,
        i?.file ?? null,
        i?.contentType ?? null,
        i?.width ?? null,
        i?.height ?? null,
        c?.imageDescription ?? '',
        i?.blurhash ?? null,
        c?.embedUrl ?? '',
        c?.language ?? null,
        c?.publishedAt ?? null,
        'error' in found ? found.error : null,
      ],
    ))!;
    const oldFile = r.old_file !== r.image_file ? r.old_file : null;
    return { card: toCard(r), oldFile };
  }

  /**
   * Ends status `statusId`'s job: the status shows card `cardId` (null: none, the fetch failed or the status is not
   * to have one). One transaction: the job goes only with its outcome.
   */
  async finish(statusId: string, url: string, cardId: string | null): Promise<void> {
    await this.db.tx(async (q) => {
      // The job for this very URL: an edit since may have queued another link (requeueCard), which this does not show.
      const mine = await q.query('DELETE FROM card_jobs WHERE status_id = $1 AND url = $2', [statusId, url]);
      if (cardId !== null && mine.rowCount === 1) {
        await q.query(
          `INSERT INTO status_cards (status_id, card_id) SELECT $1, $2 WHERE EXISTS (SELECT 1 FROM statuses WHERE id = $1)
           ON CONFLICT (status_id) DO UPDATE SET card_id = EXCLUDED.card_id WHERE status_cards.card_id <> EXCLUDED.card_id`,
          [statusId, cardId],
        );
      }
    });
  }
}
