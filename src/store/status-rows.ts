// What a status row is: the Status the code sees, the columns read and their mapping, a new status and a boost as
// written, and a hashtag's identity. The statements are in statuses.ts.
import type { PageShape } from './status-refs.js';

export const VISIBILITIES = ['public', 'unlisted', 'private', 'direct'] as const;
export type Visibility = (typeof VISIBILITIES)[number];
/** Mastodon 4.5's quote_approval_policy values a client may set. */
export const QUOTE_POLICIES = ['public', 'followers', 'nobody'] as const;
export type QuotePolicy = (typeof QUOTE_POLICIES)[number];

export interface Status {
  readonly id: string;
  readonly accountId: string;
  readonly uri: string | null;
  readonly url: string | null;
  readonly text: string;
  readonly content: string;
  readonly spoilerText: string;
  readonly visibility: Visibility;
  readonly sensitive: boolean;
  readonly language: string | null;
  readonly inReplyToId: string | null;
  readonly inReplyToAccountId: string | null;
  readonly inReplyToUri: string | null;
  /** A boost: the boosted status (this row has no content of its own). */
  readonly reblogOfId: string | null;
  /** A quote post: the quoted status (when held here) and its ActivityPub id. */
  readonly quoteOfId: string | null;
  readonly quoteUri: string | null;
  /** Who may quote it (Mastodon 4.5's quote_approval_policy); only a public or unlisted status can be quoted at all. */
  readonly quotePolicy: QuotePolicy;
  /** Its quote was revoked by the quoted author (quoteOfId is then null). */
  readonly quoteRevoked: boolean;
  readonly local: boolean;
  readonly createdAt: Date;
  readonly editedAt: Date | null;
  readonly deletedAt: Date | null;
  /** Mentioned accounts' ids (ascending). */
  readonly mentionIds: readonly string[];
  /** Hashtag names as first written. */
  readonly tags: readonly string[];
  /** The OAuth app a local status was posted with, if any. */
  readonly applicationId: string | null;
  /**
   * Imported from its author's outbox by remote history and not (yet) received through delivery: readable by id,
   * in its account's statuses and in threads, never in a feed, streaming or search (spec Events §2).
   */
  readonly history: boolean;
  /**
   * The row version read (its xmin, status-refs.ts): what the rendered-status cache keys an entry by. Null for a row
   * not read from the table (a test's literal, a RETURNING without it).
   */
  readonly version?: string | null;
}

export type NewStatus = Omit<
  Status,
  'id' | 'createdAt' | 'editedAt' | 'deletedAt' | 'reblogOfId' | 'quoteOfId' | 'quoteUri' | 'quotePolicy' | 'quoteRevoked' | 'applicationId' | 'history'
> & {
  readonly createdAt?: Date;
  /** A history import: its id is made from createdAt, so it sorts among the account's posts by age. */
  readonly history?: boolean;
  readonly applicationId?: string | null;
  readonly reblogOfId?: string | null;
  readonly quoteOfId?: string | null;
  readonly quoteUri?: string | null;
  /** Default: public. */
  readonly quotePolicy?: QuotePolicy;
};

export const STATUS_COLUMNS = `s.id, s.account_id, s.uri, s.url, s.text, s.content, s.spoiler_text, s.visibility, s.sensitive, s.language,
  s.in_reply_to_id, s.in_reply_to_account_id, s.in_reply_to_uri, s.reblog_of_id, s.quote_of_id, s.quote_uri, s.quote_policy, s.quote_revoked, s.local, s.created_at, s.edited_at, s.deleted_at,
  ARRAY(SELECT m.account_id::text FROM status_mentions m WHERE m.status_id = s.id ORDER BY m.account_id) AS mention_ids,
  ARRAY(SELECT t.name FROM status_tags st JOIN tags t ON t.id = st.tag_id WHERE st.status_id = s.id ORDER BY t.name) AS tags, s.application_id, s.history, s.xmin::text AS version`;

export interface StatusRow {
  [k: string]: unknown;
  id: string;
  account_id: string;
  uri: string | null;
  url: string | null;
  text: string;
  content: string;
  spoiler_text: string;
  visibility: number;
  sensitive: boolean;
  language: string | null;
  in_reply_to_id: string | null;
  in_reply_to_account_id: string | null;
  in_reply_to_uri: string | null;
  reblog_of_id: string | null;
  quote_of_id: string | null;
  quote_uri: string | null;
  quote_policy: QuotePolicy;
  quote_revoked: boolean;
  local: boolean;
  created_at: Date;
  edited_at: Date | null;
  deleted_at: Date | null;
  mention_ids: string[];
  tags: string[];
  application_id: string | null;
  history: boolean;
  version?: string | null;
}

export function toStatus(r: StatusRow): Status {
  return {
    id: r.id,
    accountId: r.account_id,
    uri: r.uri,
    url: r.url,
    text: r.text,
    content: r.content,
    spoilerText: r.spoiler_text,
    visibility: VISIBILITIES[r.visibility]!,
    sensitive: r.sensitive,
    language: r.language,
    inReplyToId: r.in_reply_to_id,
    inReplyToAccountId: r.in_reply_to_account_id,
    inReplyToUri: r.in_reply_to_uri,
    reblogOfId: r.reblog_of_id,
    quoteOfId: r.quote_of_id,
    quoteUri: r.quote_uri,
    quotePolicy: r.quote_policy,
    quoteRevoked: r.quote_revoked,
    local: r.local,
    createdAt: r.created_at,
    editedAt: r.edited_at,
    deletedAt: r.deleted_at,
    mentionIds: r.mention_ids,
    tags: r.tags,
    applicationId: r.application_id,
    history: r.history,
    version: r.version ?? null,
  };
}

/** Whole rows, with their version: what a page of statuses reads unless it reads refs (status-refs.ts). */
export const STATUS_ROWS: PageShape<Status[]> = {
  columns: STATUS_COLUMNS,
  statement: (sql) => sql,
  collect: (rows) => rows.map((r) => toStatus(r as StatusRow)),
};

/** A boost: a status with no content of its own, pointing at the boosted one. */
export function newBoost(b: {
  readonly accountId: string;
  readonly uri: string | null;
  readonly reblogOfId: string;
  readonly visibility: Visibility;
  readonly local: boolean;
}): NewStatus {
  return {
    ...b,
    url: null,
    text: '',
    content: '',
    spoilerText: '',
    sensitive: false,
    language: null,
    inReplyToId: null,
    inReplyToAccountId: null,
    inReplyToUri: null,
    mentionIds: [],
    tags: [],
  };
}

/** A hashtag's identity: #Ünïcode and #üNÏCODE are one tag (Unicode case folding, composed form). */
export function tagKey(name: string): string {
  return name.normalize('NFC').toLowerCase();
}
