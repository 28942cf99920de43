// The Tag and FeaturedTag entities (Mastodon's REST::TagSerializer and REST::FeaturedTagSerializer).
import type { FeaturedTag, TagDay } from '../store/tags.js';

export interface TagEntity {
  id: string;
  name: string;
  url: string;
  history: readonly TagDay[];
  following?: boolean;
  featuring?: boolean;
}

/**
 * A tag as Mastodon renders it: `id` is "" for a tag no status or member has used yet (Mastodon renders an unsaved
 * Tag); `following` and `featuring` only for a signed-in member.
 */
export function tagEntity(
  tag: { readonly id: string | null; readonly name: string },
  url: string,
  history: readonly TagDay[],
  member?: { readonly following: boolean; readonly featuring: boolean },
): TagEntity {
  const e: TagEntity = { id: tag.id ?? '', name: tag.name, url, history };
  if (member) {
    e.following = member.following;
    e.featuring = member.featuring;
  }
  return e;
}

/** `statuses_count` is a string and `last_status_at` a date (YYYY-MM-DD), as the serializer writes them. */
export function featuredTagEntity(f: FeaturedTag, url: string) {
  return {
    id: f.id,
    name: f.name,
    url,
    statuses_count: String(f.statusesCount),
    last_status_at: f.lastStatusAt ? f.lastStatusAt.toISOString().slice(0, 10) : null,
  };
}
