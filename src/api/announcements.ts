// Mastodon's announcements for members: the published ones (GET /api/v1/announcements), dismissing one (it is
// then `read`), and reactions (PUT|DELETE /api/v1/announcements/:id/reactions/:name). Staff write them on
// Administration › Announcements (web/admin-announcements-page.ts); every change members see is streamed by
// migration 064's triggers.
import type { Clock } from '../clock.js';
import { Errors } from '../errors.js';
import type { Request } from '../http/request.js';
import { json } from '../http/respond.js';
import { route, type Route, updateRoute } from '../http/types.js';
import type { Announcement, AnnouncementStore } from '../store/announcements.js';
import { isId } from '../store/ids.js';
import { isEmoji } from '../store/reactions.js';
import type { AnnouncementViews } from '../views/announcement-views.js';
import { memberIdOf } from './callers.js';
import { castBool } from './params.js';

export interface AnnouncementApiDeps {
  readonly clock: Clock;
  readonly announcements: AnnouncementStore;
  readonly views: AnnouncementViews;
}

// Mastodon's ReactionValidator messages (reactions.errors.*), under the attribute's name as Rails words it.
const UNRECOGNIZED = 'Name is not a recognized emoji';
const LIMIT_REACHED = 'Name limit of different reactions reached';

export function announcementRoutes(d: AnnouncementApiDeps): Route[] {
  /** A published announcement named by the path (anything else: Mastodon's 404). */
  const announcementOf = async (req: Request): Promise<Announcement> => {
    const id = req.params['id']!;
    const a = isId(id) ? await d.announcements.published(id) : undefined;
    if (!a) throw Errors.notFound();
    return a;
  };
  /** A Unicode emoji; a custom emoji's shortcode would have to exist here, and Stoa has no custom emojis. */
  const reactionName = (req: Request): string => {
    const name = req.params['name']!.normalize('NFC');
    if (!isEmoji(name)) throw Errors.validation(UNRECOGNIZED);
    return name;
  };

  return [
    route({
      method: 'GET',
      path: '/api/v1/announcements',
      auth: { scopes: ['read'], member: true },
      handler: async (req, who) => {
        const me = memberIdOf(who);
        // Mastodon 4 lists dismissed ones too (marked read); with_dismissed=false leaves them out, as Mastodon 3 did.
        const withDismissed = castBool(req.query['with_dismissed']) !== false;
        const list = await d.announcements.current(new Date(d.clock.now()), withDismissed ? undefined : me);
        return json(200, await d.views.render(list, me));
      },
    }),
    route({
      method: 'POST',
      path: '/api/v1/announcements/:id/dismiss',
      auth: { scopes: ['write:accounts'], member: true },
      handler: async (req, who) => {
        const me = memberIdOf(who);
        await d.announcements.dismiss(me, (await announcementOf(req)).id);
        return json(200, {});
      },
    }),
    // Rails' `resources :reactions, only: [:update, :destroy]`: PUT and PATCH alike.
    ...updateRoute({
      path: '/api/v1/announcements/:id/reactions/:name',
      auth: { scopes: ['write:favourites'], member: true },
      handler: async (req, who) => {
        const me = memberIdOf(who);
        const a = await announcementOf(req);
        const outcome = await d.announcements.react(a.id, me, reactionName(req));
        if (outcome === 'limit') throw Errors.validation(LIMIT_REACHED);
        return json(200, {});
      },
    }),
    route({
      method: 'DELETE',
      path: '/api/v1/announcements/:id/reactions/:name',
      auth: { scopes: ['write:favourites'], member: true },
      handler: async (req, who) => {
        const me = memberIdOf(who);
        const a = await announcementOf(req);
        const name = req.params['name']!.normalize('NFC');
        if (!(await d.announcements.unreact(a.id, me, name))) throw Errors.notFound();
        return json(200, {});
      },
    }),
  ];
}
