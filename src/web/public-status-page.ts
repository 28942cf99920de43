// A local post's public page at its URL (/@name/id, the `url` clients open and share; federation/note-routes.ts
// answers the same URL with the Note under content negotiation): the post as /web/statuses/:id shows it
// (web/status-page.ts), the thread around it as the viewer may read it, and the head link previewers and other
// servers read (OpenGraph, the Note's id, oEmbed). Public and unlisted posts are shown to anyone; followers-only and
// direct ones only to a signed-in member who may read them, a 404 for anyone else, as Mastodon does.
import { accountEntity } from '../entities/account.js';
import { Errors } from '../errors.js';
import type { Request } from '../http/request.js';
import { redirect } from '../http/respond.js';
import type { Reply } from '../http/types.js';
import { isId } from '../store/ids.js';
import type { StatusRef } from '../store/status-refs.js';
import { ANONYMOUS_CONTEXT, type ThreadStore } from '../store/threads.js';
import { htmlToPlainText } from '../text/plain-text.js';
import type { LocalUris } from '../urls/local-uris.js';
import type { StatusViews } from '../views/status-views.js';
import type { WebDeps } from './deps.js';
import { html } from './html.js';
import { negotiatedPageReply } from './layout.js';
import { openGraphHead, statusDescription } from './open-graph.js';
import { linkedPostHtml } from './post-html.js';
import { shownStatus, statusArticle, statusPolicy, type StatusPageDeps } from './status-page.js';

export interface PublicStatusPageDeps extends StatusPageDeps {
  readonly threads: ThreadStore;
  readonly views: StatusViews;
  readonly uris: LocalUris;
}

export function publicStatusPage(web: WebDeps, d: PublicStatusPageDeps) {
  const { config } = web;
  const posts = linkedPostHtml(config.baseUrl);
  return async (req: Request, name: string, id: string): Promise<Reply> => {
    // Only our own posts live here (a remote post's URL is its server's), under their author's name.
    const asked = isId(id) ? await d.statuses.byId(id) : undefined;
    if (!asked?.local || asked.deletedAt) throw Errors.notFound();
    const poster = await d.accounts.byId(asked.accountId);
    if (!poster || poster.domain !== null || poster.username.toLowerCase() !== name.toLowerCase()) throw Errors.notFound();
    const ctx = await web.auth.context(req);
    const viewer = ctx.user?.accountId ?? null;
    if (!(await d.statuses.canSee(asked, viewer))) throw Errors.notFound();
    // A boost's URL opens the boosted post, as Mastodon redirects it.
    if (asked.reblogOfId) {
      const boosted = await d.statuses.readable(asked.reblogOfId, viewer);
      const author = boosted && (await d.accounts.byId(boosted.accountId));
      if (!boosted || !author) throw Errors.notFound();
      return redirect(boosted.local ? `/@${author.username}/${boosted.id}` : `/web/statuses/${boosted.id}`);
    }
    const shown = await shownStatus(d, asked, ctx);
    const { status: s, author } = shown;
    const thread = await d.threads.context(s.id, viewer, ANONYMOUS_CONTEXT);
    const refs = thread ? [...thread.ancestors, ...thread.descendants] : [];
    const entities = refs.length ? await d.views.inContextRefs({ refs, dynamics: thread?.dynamics ?? null }, viewer, 'thread') : [];
    const byId = new Map(entities.map((e) => [e.id, e]));
    const list = (part: readonly StatusRef[] = []) => part.flatMap((r) => byId.get(r.id) ?? []);
    const [ancestors, replies] = [list(thread?.ancestors), list(thread?.descendants)];

    const url = d.uris.statusUrl(author.username, s.id);
    const name_ = author.displayName || author.username;
    const open = s.visibility === 'public' || s.visibility === 'unlisted';
    const image = s.sensitive ? undefined : shown.media.find((x) => x.m.type === 'image')?.url;
    const head = openGraphHead({
      title: `${name_} (@${author.username}@${config.localDomain})`,
      description: statusDescription({ text: htmlToPlainText(s.content), spoilerText: s.spoilerText, mediaTypes: shown.media.map((x) => x.m.type) }),
      published: s.createdAt.toISOString(),
      url,
      type: 'article',
      image: image ?? accountEntity(author, config).avatar,
      largeImage: image !== undefined,
      siteName: config.instance.title,
      // Other servers and embedders may fetch only what is public: the Note and oEmbed answer nothing else.
      alternates: open
        ? [
            { type: 'application/activity+json', href: s.uri ?? d.uris.status(author.username, s.id) },
            { type: 'application/json+oembed', href: `${config.baseUrl}/api/oembed?format=json&url=${encodeURIComponent(url)}` },
          ]
        : [],
    });
    const body = html`${ancestors.length ? html`<section class="ancestors">${ancestors.map(posts)}</section>` : ''}
${statusArticle(shown)}
${replies.length ? html`<section class="replies"><h2>Replies</h2>${replies.map(posts)}</section>` : ''}`;
    // As Mastodon, the Note is also named in a Link header (for clients that read headers only).
    const link = open ? `<${s.uri ?? d.uris.status(author.username, s.id)}>; rel="alternate"; type="application/activity+json"` : undefined;
    // Mastodon's statuses.title: the name and the first 50 characters of the warning, else of the text.
    const quote = (s.spoilerText || htmlToPlainText(s.content)).replace(/\s+/g, ' ').trim();
    const title = `${name_}: "${quote.length > 50 ? `${quote.slice(0, 49)}…` : quote}"`;
    return negotiatedPageReply(title, body, { instanceTitle: config.instance.title, head, ctx, csp: statusPolicy(shown), link });
  };
}
