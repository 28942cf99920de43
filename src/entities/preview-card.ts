// A link's card as Mastodon's PreviewCard entity (REST::PreviewCardSerializer): on a status (`card`) and, with its
// history, in the trending links. The image is our copy, served by our proxy (api/card-images.ts), never the remote
// address: clients loading it would tell the page's server who reads whom.
import type { PreviewCard } from '../store/preview-cards.js';

/** Where clients load a card's image: versioned by the stored file, so a refetched image is a new address. */
export function cardImageUrl(baseUrl: string, c: PreviewCard): string | null {
  return c.image ? `${baseUrl}/media_proxy/cards/${c.id}/image?v=${encodeURIComponent(c.image.file.slice(0, 16))}` : null;
}

export function previewCardEntity(c: PreviewCard, baseUrl: string) {
  return {
    url: c.url,
    title: c.title,
    description: c.description,
    language: c.language,
    type: c.type,
    author_name: c.authorName,
    author_url: c.authorUrl,
    provider_name: c.providerName,
    provider_url: c.providerUrl,
    html: c.html,
    // An embed's own size (oEmbed) when it has one, else the image's.
    width: c.width > 0 ? c.width : (c.image?.width ?? 0),
    height: c.height > 0 ? c.height : (c.image?.height ?? 0),
    image: cardImageUrl(baseUrl, c),
    image_description: c.imageDescription,
    embed_url: c.embedUrl,
    blurhash: c.image?.blurhash ?? null,
    published_at: c.publishedAt?.toISOString() ?? null,
    authors: [] as unknown[],
  };
}

export type PreviewCardEntity = ReturnType<typeof previewCardEntity>;
