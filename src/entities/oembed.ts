// Mastodon's OEmbedSerializer: a local public or unlisted status as an oEmbed "rich" answer. Mastodon's `html` is a
// blockquote that its embed.js turns into an iframe of /@name/id/embed; we serve no embed page nor script, so the
// blockquote is the embed: a link to the post's page that reads well on its own.
import { escapeText } from '../text/plain-text.js';

/** Mastodon's OEmbedSerializer::DEFAULT_WIDTH. */
export const OEMBED_DEFAULT_WIDTH = 400;
/** Mastodon's cache_age: a day. */
const CACHE_AGE = 86_400;

export interface OEmbedSource {
  readonly username: string;
  readonly displayName: string;
  /** The status's URL (/@name/id) and its author's (/@name). */
  readonly statusUrl: string;
  readonly profileUrl: string;
  readonly localDomain: string;
  /** BASE_URL with its trailing slash (Mastodon's root_url). */
  readonly rootUrl: string;
  readonly instanceTitle: string;
  readonly width: number;
  readonly height: number | null;
}

export function oembedEntity(o: OEmbedSource) {
  const by = `@${o.username}@${o.localDomain}`;
  return {
    type: 'rich',
    version: '1.0',
    title: `New status by ${o.username}`,
    author_name: o.displayName || o.username,
    author_url: o.profileUrl,
    provider_name: o.localDomain,
    provider_url: o.rootUrl,
    cache_age: CACHE_AGE,
    html:
      `<blockquote class="mastodon-embed" style="max-width: 540px; min-width: 270px; border: 1px solid #C9C4DA; border-radius: 8px; margin: 0; padding: 0;">` +
      `<a href="${escapeText(o.statusUrl)}" target="_blank" style="display: block; padding: 24px; text-decoration: none;">` +
      `<div>Post by ${escapeText(by)}</div><div style="font-weight: 500;">View on ${escapeText(o.instanceTitle)}</div></a></blockquote>`,
    width: o.width,
    height: o.height,
  };
}
