// Link preview cards' images (services/link-cards.ts keeps a small copy of each on the media storage): served here,
// so clients never load them from the linked page's server, which would tell it who reads whom.
import { Errors } from '../errors.js';
import { fileReply } from '../http/file-body.js';
import { PUBLIC, type Route } from '../http/types.js';
import type { MediaFiles } from '../media/media-files.js';
import { isId } from '../store/ids.js';
import type { PreviewCardStore } from '../store/preview-cards.js';

export interface CardImageDeps {
  readonly cards: PreviewCardStore;
  readonly files: MediaFiles;
}

export function cardImageRoutes(d: CardImageDeps): Route[] {
  return [
    {
      method: 'GET',
      path: '/media_proxy/cards/:id/image',
      auth: PUBLIC,
      handler: async (req) => {
        const id = req.params['id']!;
        const card = isId(id) ? await d.cards.byId(id) : undefined;
        const f = card?.image && (await d.files.locate(card.image.file));
        if (!card?.image || !f) throw Errors.routeNotFound();
        return fileReply(f, req.headers['range'], {
          'Content-Type': card.image.contentType,
          // The address changes with the image (?v=), so a copy may be kept long.
          'Cache-Control': 'public, max-age=604800',
          'X-Content-Type-Options': 'nosniff',
          'Content-Security-Policy': "default-src 'none'; sandbox",
        });
      },
    },
  ];
}
