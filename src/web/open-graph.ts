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
  /** A post's time (ISO 8601), as Mastodon's og:published_time. */
  readonly published?: string;
  /** A profile's handle without the @ (name@domain), as Mastodon's profile:username. */
  readonly username?: string;
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
${og.published ? html`<meta property="og:published_time" content="${og.published}">` : ''}
${og.username ? html`<meta property="profile:username" content="${og.username}">` : ''}
${og.image ? html`<meta property="og:image" content="${og.image}">` : ''}
<meta name="twitter:card" content="${og.image && og.largeImage ? 'summary_large_image' : 'summary'}">
<link rel="canonical" href="${og.url}">
${(og.alternates ?? []).map((a) => html`<link rel="alternate" type="${a.type}" href="${a.href}">`)}`;
}

/** Mastodon's statuses.attached words: "1 image", "2 videos". */
const ATTACHED: Record<string, readonly [string, string]> = { image: ['image', 'images'], video: ['video', 'videos'], audio: ['audio', 'audio'] };

/**
 * A post's description as Mastodon's status_description writes it: what is attached ("Attached: 2 images · 1 video")
 * and the content warning on one line, then the text unless a warning hides it.
 */
export function statusDescription(p: { readonly text: string; readonly spoilerText: string; readonly mediaTypes: readonly string[] }): string {
  const counts = new Map<string, number>();
  for (const t of p.mediaTypes) {
    const kind = t === 'gifv' ? 'video' : t;
    if (ATTACHED[kind]) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  }
  const attached = ['image', 'video', 'audio'].flatMap((k) => {
    const n = counts.get(k);
    return n ? [`${n} ${ATTACHED[k]![n === 1 ? 0 : 1]}`] : [];
  });
  const summary = [attached.length ? `Attached: ${attached.join(' · ')}` : '', p.spoilerText ? `Content warning: ${p.spoilerText}` : '']
    .filter(Boolean)
    .join(' · ');
  return [summary, p.spoilerText ? '' : p.text].filter(Boolean).join('\n\n');
}
