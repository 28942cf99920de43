// Editing a status and the versions it keeps, as Mastodon's UpdateStatusService does: text, content warning,
// sensitivity, language, attachments and poll change together in one transaction; the first edit also records the
// original; every version records its attachments (with their descriptions then) and its poll's options; an edit
// that changes nothing is no edit (no version, no edited_at, nothing sent).
import { requeueCard } from './preview-cards.js';
import { linkStatus } from './status-links.js';
import type { Database, Queryable } from './db.js';
import { editAttachments, editRemoteAttachments, shownMedia, type MediaAttributes, type RemoteMedia } from './media.js';
import { editPoll, pollOptions, type PollSpec } from './polls.js';

export interface StatusEdit {
  readonly text: string;
  readonly content: string;
  readonly spoilerText: string;
  readonly sensitive: boolean;
  readonly language: string | null;
  readonly mentionIds: readonly string[];
  readonly tags: readonly string[];
  readonly editedAt?: Date;
  /** The attachments from now on (undefined: unchanged): a member's uploads by id, or a remote post's by URL. */
  readonly media?: { readonly ids: readonly string[]; readonly attributes: readonly MediaAttributes[] } | { readonly remote: readonly RemoteMedia[] };
  /** The poll from now on (undefined: unchanged, null: none). */
  readonly poll?: PollSpec | null;
}

export type EditOutcome = 'edited' | 'unchanged' | 'not_found' | 'media_refused' | 'media_mixed' | 'media_unready';

export interface StatusVersion {
  readonly content: string;
  readonly spoilerText: string;
  readonly sensitive: boolean;
  readonly createdAt: Date;
  readonly mediaIds: readonly string[];
  /** Each attachment's description in this version. */
  readonly mediaDescriptions: readonly (string | null)[];
  readonly pollOptions: readonly string[] | null;
}

type Link = (q: Queryable, statusId: string, mentionIds: readonly string[], tags: readonly string[]) => Promise<void>;

/** Thrown inside the transaction to roll it back with this outcome. */
class Outcome extends Error {
  constructor(readonly outcome: EditOutcome) {
    super(outcome);
  }
}

async function recordVersion(q: Queryable, statusId: string, v: { content: string; spoilerText: string; sensitive: boolean; at: Date }): Promise<void> {
  const media = await shownMedia(q, statusId);
  await q.query(
    `INSERT INTO status_edits (status_id, content, spoiler_text, sensitive, created_at, media_ids, media_descriptions, poll_options)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [statusId, v.content, v.spoilerText, v.sensitive, v.at, media.ids, media.descriptions, await pollOptions(q, statusId)],
  );
}

/** Applies an edit (mentions and hashtags are replaced with `link`). */
export async function editStatus(db: Database, id: string, e: StatusEdit, link: Link): Promise<EditOutcome> {
  try {
    return await db.tx(async (q) => {
      const c = (
        await q.query<{
          account_id: string;
          text: string;
          content: string;
          spoiler_text: string;
          sensitive: boolean;
          language: string | null;
          created_at: Date;
          edited_at: Date | null;
          local: boolean;
          history: boolean;
        }>(
          'SELECT account_id, text, content, spoiler_text, sensitive, language, created_at, edited_at, local, history FROM statuses WHERE id = $1 AND deleted_at IS NULL FOR UPDATE',
          [id],
        )
      ).rows[0];
      if (!c) return 'not_found';
      if (c.edited_at === null) await recordVersion(q, id, { content: c.content, spoilerText: c.spoiler_text, sensitive: c.sensitive, at: c.created_at });
      let changed =
        c.text !== e.text || c.content !== e.content || c.spoiler_text !== e.spoilerText || c.sensitive !== e.sensitive || c.language !== e.language;
      if (e.media) {
        const media =
          'ids' in e.media
            ? await editAttachments(q, c.account_id, id, e.media.ids, e.media.attributes)
            : await editRemoteAttachments(q, c.account_id, id, e.media.remote);
        if (media === null) throw new Outcome('media_refused');
        if (media === 'mixed') throw new Outcome('media_mixed');
        if (media === 'unready') throw new Outcome('media_unready');
        changed ||= media;
      }
      if (e.poll !== undefined) changed = (await editPoll(q, id, c.account_id, e.poll)) || changed;
      if (!changed) throw new Outcome('unchanged');
      const at = e.editedAt ?? new Date();
      await q.query('UPDATE statuses SET text = $2, content = $3, spoiler_text = $4, sensitive = $5, language = $6, edited_at = $7 WHERE id = $1', [
        id,
        e.text,
        e.content,
        e.spoilerText,
        e.sensitive,
        e.language,
        at,
      ]);
      await recordVersion(q, id, { content: e.content, spoilerText: e.spoilerText, sensitive: e.sensitive, at });
      await q.query('DELETE FROM status_mentions WHERE status_id = $1', [id]);
      await q.query('DELETE FROM status_tags WHERE status_id = $1', [id]);
      await link(q, id, e.mentionIds, e.tags);
      // The link the edited text is about (trends, the link timeline), as a new status's.
      await q.query('DELETE FROM status_links WHERE status_id = $1', [id]);
      const url = await linkStatus(q, id, e.content, c.local);
      // Its card follows its link, as a new status's (not a history import's).
      if (!c.history) await requeueCard(q, id, url);
      return 'edited';
    });
  } catch (err) {
    if (err instanceof Outcome) return err.outcome;
    throw err;
  }
}

/** The versions of an edited status, oldest first (empty for one never edited). */
export async function statusVersions(db: Database, id: string): Promise<StatusVersion[]> {
  const rows = await db.rows<{
    content: string;
    spoiler_text: string;
    sensitive: boolean;
    created_at: Date;
    media_ids: string[];
    media_descriptions: (string | null)[];
    poll_options: string[] | null;
  }>('SELECT content, spoiler_text, sensitive, created_at, media_ids, media_descriptions, poll_options FROM status_edits WHERE status_id = $1 ORDER BY id', [
    id,
  ]);
  return rows.map((r) => ({
    content: r.content,
    spoilerText: r.spoiler_text,
    sensitive: r.sensitive,
    createdAt: r.created_at,
    mediaIds: r.media_ids,
    mediaDescriptions: r.media_descriptions,
    pollOptions: r.poll_options,
  }));
}
