// Mastodon 4.3's link timeline (Api::V1::Timelines::LinkController): the public posts about a trending link, newest
// first, paged as the other timelines. As Mastodon, the link must be a trend shown to the public (its
// PreviewCardTrend.allowed): any other URL, or none, is 404. The URL is normalized as links are stored
// (text/status-links.ts), so a client may write it as it was posted.
import { Errors } from '../errors.js';
import { pageQuery, timelineLinks } from '../http/pagination.js';
import { jsonPieces } from '../http/respond.js';
import { route, type Route } from '../http/types.js';
import type { RefPage } from '../store/ref-pages.js';
import type { TimelineStore } from '../store/timelines.js';
import type { TrendStore } from '../store/trends.js';
import { normalizeLink } from '../text/status-links.js';
import { pushStatusesJson } from '../views/status-json.js';
import type { StatusViews } from '../views/status-views.js';
import { viewerOf } from './callers.js';

export interface LinkTimelineDeps {
  readonly baseUrl: string;
  readonly trends: TrendStore;
  readonly timelines: TimelineStore<RefPage>;
  readonly views: StatusViews;
}

export function linkTimelineRoutes(d: LinkTimelineDeps): Route[] {
  return [
    route({
      method: 'GET',
      path: '/api/v1/timelines/link',
      auth: { scopes: ['read:statuses'], optional: true },
      handler: async (req, who) => {
        const raw = req.query['url'];
        const url = typeof raw === 'string' ? normalizeLink(raw) : null;
        const linkId = url === null ? undefined : await d.trends.shownLink(url);
        if (linkId === undefined) throw Errors.notFound();
        const viewerId = viewerOf(who);
        const page = pageQuery(req.query, 20, 40);
        const list = await d.timelines.linked(linkId, page, viewerId);
        const links = timelineLinks(
          d.baseUrl + req.path,
          page,
          list.refs.map((s) => s.id),
          { url: raw as string },
        );
        return jsonPieces(200, pushStatusesJson(await d.views.inContextRefs(list, viewerId, 'public'), []), links);
      },
    }),
  ];
}
