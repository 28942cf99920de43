// A hashtag's page at its URL (/tags/name; federation/tag-routes.ts answers the same URL with a collection under
// content negotiation): the recent public posts with the tag, local and remote, newest first, as the tag timeline
// has them for the viewer, 20 at a time with an "Older posts" link (max_id). A tag nobody used is an empty page.
import { TAG_NAME } from '../federation/tag-routes.js';
import type { Request } from '../http/request.js';
import type { Reply } from '../http/types.js';
import type { TimelineStore } from '../store/timelines.js';
import type { LocalUris } from '../urls/local-uris.js';
import type { StatusViews } from '../views/status-views.js';
import type { WebDeps } from './deps.js';
import { html } from './html.js';
import { negotiatedPageReply } from './layout.js';
import { openGraphHead } from './open-graph.js';
import { linkedPostHtml } from './post-html.js';
import { olderPage } from './older-link.js';

export interface TagPageDeps {
  readonly timelines: TimelineStore;
  readonly views: StatusViews;
  readonly uris: LocalUris;
}

export function tagPage(web: WebDeps, d: TagPageDeps) {
  const { config } = web;
  const posts = linkedPostHtml(config.baseUrl);
  return async (req: Request, name: string): Promise<Reply> => {
    const ctx = await web.auth.context(req);
    const viewer = ctx.user?.accountId ?? null;
    const page = olderPage(req);
    const list = TAG_NAME.test(name) ? await d.timelines.tagged(name, page, 'all', viewer) : [];
    const shown = await d.views.inContext(list, viewer, 'public');
    const url = d.uris.tag(name);
    const head = openGraphHead({
      title: `#${name}`,
      description: `Recent public posts tagged #${name} on ${config.instance.title}`,
      url,
      type: 'website',
      siteName: config.instance.title,
      alternates: [{ type: 'application/activity+json', href: url }],
    });
    const body = html`<h1 class="tag">#${name}</h1>
<section class="posts">${shown.length ? shown.map(posts) : html`<p class="empty">No public posts with this tag${page.maxId ? ' before these' : ''}.</p>`}</section>
${list.length === page.limit ? html`<p><a class="older" rel="next" href="?max_id=${list[list.length - 1]!.id}">Older posts</a></p>` : ''}`;
    return negotiatedPageReply(`#${name}`, body, { instanceTitle: config.instance.title, head, ctx });
  };
}
