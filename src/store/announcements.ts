// Announcements (Mastodon's Announcement): staff write them, members read the published ones, dismiss them and react
// to them. Migration 064's triggers stream every change that members see (announcement, announcement.delete,
// announcement.reaction), so writes here need no notify of their own.
import type { Database } from './db.js';

/** Mastodon's ReactionValidator::LIMIT: different reactions on one announcement. */
export const MAX_REACTION_NAMES = 8;

export interface Announcement {
  readonly id: string;
  readonly text: string;
  readonly published: boolean;
  readonly allDay: boolean;
  readonly startsAt: Date | null;
  readonly endsAt: Date | null;
  readonly publishedAt: Date | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

export interface AnnouncementInput {
  readonly text: string;
  readonly allDay: boolean;
  readonly startsAt: Date | null;
  readonly endsAt: Date | null;
}

/** One reaction on an announcement, as a member sees it. */
export interface AnnouncementReactionCount {
  readonly name: string;
  readonly count: number;
  readonly me: boolean;
}

interface Row extends Record<string, unknown> {
  id: string;
  text: string;
  published: boolean;
  all_day: boolean;
  starts_at: Date | null;
  ends_at: Date | null;
  published_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = 'id, text, published, all_day, starts_at, ends_at, published_at, created_at, updated_at';

function toAnnouncement(r: Row): Announcement {
  return {
    id: r.id,
    text: r.text,
    published: r.published,
    allDay: r.all_day,
    startsAt: r.starts_at,
    endsAt: r.ends_at,
    publishedAt: r.published_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export class AnnouncementStore {
  constructor(private readonly db: Database) {}

  /** Every announcement, newest first (the staff page). */
  async all(): Promise<Announcement[]> {
    return (await this.db.rows<Row>(`SELECT ${COLUMNS} FROM announcements ORDER BY id DESC`)).map(toAnnouncement);
  }

  /**
   * What members see: published, and not over (an event whose end has passed; an all-day event's end is a day, so
   * it lasts through that day), in Mastodon's chronological order (by when it starts, else when it was published).
   * With `withoutDismissedBy`, without the ones that member dismissed.
   */
  async current(now: Date, withoutDismissedBy?: string): Promise<Announcement[]> {
    const rows = await this.db.rows<Row>(
      `SELECT ${COLUMNS} FROM announcements a
        WHERE published AND (ends_at IS NULL OR ends_at + CASE WHEN all_day THEN interval '1 day' ELSE interval '0' END > $1)
          AND ($2::bigint IS NULL OR NOT EXISTS (SELECT 1 FROM announcement_dismissals d WHERE d.announcement_id = a.id AND d.account_id = $2))
        ORDER BY COALESCE(starts_at, published_at, created_at), id`,
      [now, withoutDismissedBy ?? null],
      'prepared',
    );
    return rows.map(toAnnouncement);
  }

  async byId(id: string): Promise<Announcement | undefined> {
    const r = await this.db.one<Row>(`SELECT ${COLUMNS} FROM announcements WHERE id = $1`, [id]);
    return r && toAnnouncement(r);
  }

  /** A published one, as members may act on it. */
  async published(id: string): Promise<Announcement | undefined> {
    const a = await this.byId(id);
    return a?.published ? a : undefined;
  }

  async create(v: AnnouncementInput, publish: boolean): Promise<Announcement> {
    const r = await this.db.one<Row>(
      `INSERT INTO announcements (text, all_day, starts_at, ends_at, published, published_at)
       VALUES ($1, $2, $3, $4, $5, CASE WHEN $5 THEN now() END) RETURNING ${COLUMNS}`,
      [v.text, v.allDay, v.startsAt, v.endsAt, publish],
    );
    return toAnnouncement(r!);
  }

  async update(id: string, v: AnnouncementInput): Promise<Announcement | undefined> {
    const r = await this.db.one<Row>(
      `UPDATE announcements SET text = $2, all_day = $3, starts_at = $4, ends_at = $5, updated_at = now()
        WHERE id = $1 RETURNING ${COLUMNS}`,
      [id, v.text, v.allDay, v.startsAt, v.endsAt],
    );
    return r && toAnnouncement(r);
  }

  /** Publishes (published_at: now, as Mastodon's publish!) or unpublishes; unchanged when already so. */
  async setPublished(id: string, publish: boolean): Promise<Announcement | undefined> {
    const r = await this.db.one<Row>(
      `UPDATE announcements SET published = $2, published_at = CASE WHEN $2 THEN now() ELSE NULL END, updated_at = now()
        WHERE id = $1 AND published <> $2 RETURNING ${COLUMNS}`,
      [id, publish],
    );
    return r ? toAnnouncement(r) : this.byId(id);
  }

  async remove(id: string): Promise<boolean> {
    return (await this.db.exec('DELETE FROM announcements WHERE id = $1', [id])) > 0;
  }

  async dismiss(accountId: string, id: string): Promise<void> {
    await this.db.exec('INSERT INTO announcement_dismissals (account_id, announcement_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [accountId, id]);
  }

  /** Of these announcements, the ones each of these members dismissed ("account announcement" pairs). */
  async dismissed(ids: readonly string[], accountIds: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0 || accountIds.length === 0) return new Set();
    const rows = await this.db.rows<{ account_id: string; announcement_id: string }>(
      `SELECT account_id, announcement_id FROM announcement_dismissals
        WHERE announcement_id = ANY($1::bigint[]) AND account_id = ANY($2::bigint[])`,
      [ids, accountIds],
    );
    return new Set(rows.map((r) => `${r.account_id} ${r.announcement_id}`));
  }

  /**
   * Adds a member's reaction: 'added', 'exists' (theirs already), or 'limit' when it would be a ninth different
   * one. The limit is checked under a lock on the announcement, so two members cannot both add the ninth.
   */
  async react(id: string, accountId: string, name: string): Promise<'added' | 'exists' | 'limit'> {
    return this.db.tx(async (q) => {
      await q.query('SELECT 1 FROM announcements WHERE id = $1 FOR UPDATE', [id]);
      const names = await q.query<{ name: string; mine: boolean }>(
        'SELECT name, bool_or(account_id = $2) AS mine FROM announcement_reactions WHERE announcement_id = $1 GROUP BY name',
        [id, accountId],
      );
      const same = names.rows.find((r) => r.name === name);
      if (same?.mine) return 'exists';
      if (!same && names.rows.length >= MAX_REACTION_NAMES) return 'limit';
      await q.query('INSERT INTO announcement_reactions (announcement_id, account_id, name) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [id, accountId, name]);
      return 'added';
    });
  }

  async unreact(id: string, accountId: string, name: string): Promise<boolean> {
    return (await this.db.exec('DELETE FROM announcement_reactions WHERE announcement_id = $1 AND account_id = $2 AND name = $3', [id, accountId, name])) > 0;
  }

  /** Each announcement's reactions in the order first given, with whether `viewer` gave each. */
  async reactions(ids: readonly string[], viewer: string | null): Promise<Map<string, AnnouncementReactionCount[]>> {
    const out = new Map<string, AnnouncementReactionCount[]>();
    if (ids.length === 0) return out;
    const rows = await this.db.rows<{ announcement_id: string; name: string; count: number; me: boolean }>(
      `SELECT announcement_id, name, count(*)::int AS count, COALESCE(bool_or(account_id = $2), false) AS me
         FROM announcement_reactions WHERE announcement_id = ANY($1::bigint[])
        GROUP BY announcement_id, name ORDER BY min(created_at), name`,
      [ids, viewer],
    );
    for (const r of rows) {
      let list = out.get(r.announcement_id);
      if (!list) out.set(r.announcement_id, (list = []));
      list.push({ name: r.name, count: r.count, me: r.me });
    }
    return out;
  }

  /** How many members gave this reaction (the `count` of an announcement.reaction event). */
  async reactionCount(id: string, name: string): Promise<number> {
    const r = await this.db.one<{ n: number }>('SELECT count(*)::int AS n FROM announcement_reactions WHERE announcement_id = $1 AND name = $2', [id, name]);
    return r?.n ?? 0;
  }

  /** Which of these members gave which reactions to one announcement ("account name" pairs: a stream event's `me`). */
  async reactionsBy(id: string, accountIds: readonly string[]): Promise<Set<string>> {
    if (accountIds.length === 0) return new Set();
    const rows = await this.db.rows<{ account_id: string; name: string }>(
      'SELECT account_id, name FROM announcement_reactions WHERE announcement_id = $1 AND account_id = ANY($2::bigint[])',
      [id, accountIds],
    );
    return new Set(rows.map((r) => `${r.account_id} ${r.name}`));
  }
}
