// Trends as the client API shows them: Tag (with its History; the public list renders it through views/tag-views.ts,
// this one is the admin form's base), PreviewCard with history (Mastodon's REST::Trends::LinkSerializer) and their
// Admin forms (REST::Admin::TagSerializer, REST::Admin::Trends::LinkSerializer), and a link publisher
// (REST::Admin::Trends::Links::PreviewCardProviderSerializer).
// A link with a fetched card (migration 076) shows it; one without (not fetched yet, or its fetch failed) shows
// Mastodon's empty values, its title the anchor's text or else the URL.
import type { Publisher } from '../store/trend-publishers.js';
import type { LinkTrendRow, TagTrendRow } from '../store/trends.js';
import { previewCardEntity } from './preview-card.js';

export interface HistoryEntity {
  readonly day: string;
  readonly uses: string;
  readonly accounts: string;
}

export interface TagEntity {
  readonly id: string;
  readonly name: string;
  readonly url: string;
  readonly history: readonly HistoryEntity[];
}

export function tagEntity(t: TagTrendRow, tagUrl: (name: string) => string): TagEntity {
  return { id: t.itemId, name: t.name, url: tagUrl(t.name), history: t.history };
}

/**
 * REST::Admin::TagSerializer: the Tag and its review state. `trendable` is Mastodon's Tag#trendable?: approved when
 * trends need review, else not rejected.
 */
export function adminTagEntity(t: TagTrendRow, tagUrl: (name: string) => string, reviewRequired: boolean) {
  const trendable = reviewRequired ? t.trendable === true : t.trendable !== false;
  return { ...tagEntity(t, tagUrl), trendable, usable: true, requires_review: t.requiresReview, listable: true };
}

export function linkEntity(l: LinkTrendRow, baseUrl: string) {
  if (l.card) return { ...previewCardEntity(l.card, baseUrl), history: l.history };
  return {
    url: l.url,
    title: l.title || l.url,
    description: '',
    language: null,
    type: 'link',
    author_name: '',
    author_url: '',
    provider_name: '',
    provider_url: '',
    html: '',
    width: 0,
    height: 0,
    image: null,
    image_description: '',
    embed_url: '',
    blurhash: null,
    published_at: null,
    authors: [],
    history: l.history,
  };
}

/** REST::Admin::Trends::LinkSerializer: the link with its id and review state. */
export function adminLinkEntity(l: LinkTrendRow, baseUrl: string) {
  return { ...linkEntity(l, baseUrl), id: l.itemId, requires_review: l.requiresReview };
}

/**
 * REST::Admin::Trends::Links::PreviewCardProviderSerializer. Mastodon sends its small sequential id as a number; ours
 * are time-ordered 64-bit ids, past what a JSON number holds exactly, so a string as every other id.
 */
export function publisherEntity(p: Publisher) {
  return {
    id: p.id,
    domain: p.domain,
    trendable: p.trendable,
    reviewed_at: p.reviewedAt?.toISOString() ?? null,
    requested_review_at: p.requestedReviewAt?.toISOString() ?? null,
    requires_review: p.reviewedAt === null,
  };
}
