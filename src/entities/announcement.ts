// Announcement rows → Mastodon's Announcement entity (REST::AnnouncementSerializer): the staff's text as HTML with
// the accounts, posts and hashtags it names, the event's times, and the reader's own state (read, which reactions
// are theirs). A reaction's url/static_url belong to custom emojis only, and Stoa has none of its own.
import type { Account } from '../store/accounts.js';
import type { Announcement, AnnouncementReactionCount } from '../store/announcements.js';
import type { LocalUris } from '../urls/local-uris.js';
import { acctOf } from './status.js';

/** What an announcement shows everyone alike, resolved once from its text. */
export interface AnnouncementParts {
  readonly content: string;
  readonly mentions: readonly Account[];
  readonly statuses: readonly { readonly id: string; readonly url: string }[];
  readonly tags: readonly string[];
}

/** An all-day event's times are dates: Mastodon's clients show the day, so the times are kept as given. */
export function announcementEntity(
  a: Announcement,
  p: AnnouncementParts,
  uris: LocalUris,
  reader: { readonly read: boolean; readonly reactions: readonly AnnouncementReactionCount[] } | null,
) {
  return {
    id: a.id,
    content: p.content,
    starts_at: a.startsAt?.toISOString() ?? null,
    ends_at: a.endsAt?.toISOString() ?? null,
    all_day: a.allDay,
    published_at: (a.publishedAt ?? a.createdAt).toISOString(),
    updated_at: a.updatedAt.toISOString(),
    ...(reader && { read: reader.read }),
    mentions: p.mentions.map((m) => ({ id: m.id, username: m.username, url: m.domain ? (m.url ?? m.uri) : uris.profile(m.username), acct: acctOf(m) })),
    statuses: p.statuses.map((s) => ({ id: s.id, url: s.url })),
    tags: p.tags.map((name) => ({ name, url: uris.tag(name) })),
    emojis: [],
    reactions: (reader?.reactions ?? []).map((r) => ({ name: r.name, count: r.count, me: r.me })),
  };
}

export type AnnouncementEntity = ReturnType<typeof announcementEntity>;
