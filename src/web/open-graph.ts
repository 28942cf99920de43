// The head of a public page that link previewers read (OpenGraph and Twitter cards, as Mastodon's pages carry them),
// and the alternates other servers and oEmbed consumers follow (the page's ActivityPub document, its oEmbed).
import { html, type Html } from './html.js';

export interface OpenGraph {
  readonly title: string;
  readonly description: string;
  /** The page's own absolute URL. */
  readonly url: string;
  readonly type: 'article' | 'profile' | 'website';
  /** The image previews show: a post's first image, else its author's avatar. */
  readonly image?: string | null;
  /** Whether the image is the post's own (a large card) rather than an avatar (a small one). */
  readonly largeImage?: boolean;
  readonly siteName: string;
  readonly alternates?: readonly { readonly type: string; readonly href: string }[];
}

/** Previewers show a description of a few lines at most; Mastodon cuts it likewise. */
const DESCRIPTION_CHARS = 300;

export function openGraphHead(og: OpenGraph): Html {
  const description = og.description.length > DESCRIPTION_CHARS ? `${og.description.slice(0, DESCRIPTION_CHARS - 1)}…` : og.description;
  return html`<meta name="description" content="${description}">
<meta property="og:site_name" content="${og.siteName}">
<meta property="og:type" content="${og.type}">
<meta property="og:title" content="${og.title}">
<meta property="og:description" content="${description}">
<meta property="og:url" content="${og.url}">
${og.image ? html`<meta property="og:image" content="${og.image}">` : ''}
<meta name="twitter:card" content="${og.image && og.largeImage ? 'summary_large_image' : 'summary'}">
<link rel="canonical" href="${og.url}">
${(og.alternates ?? []).map((a) => html`<link rel="alternate" type="${a.type}" href="${a.href}">`)}`;
}
