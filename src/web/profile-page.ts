// The public profile page browsers get at /@name and /users/name (ActivityPub clients get the actor document): the
// member's name, bio and counts, then their posts as the viewer may read them (as Mastodon's profile: public and
// unlisted for anyone, followers-only too for a follower; boosts in, replies to others out), pinned ones first on
// the first page, 20 at a time with an "Older posts" link (max_id); each post links to its page (/@name/id).
// Filtered by a hashtag (/@name/tagged/tag, a featured tag's `url`, as Mastodon's profile filtered by tag): the same
// page with only the posts carrying the tag (the account timeline's `tagged`, as GET /api/v1/accounts/:id/statuses
// has it), pinned ones with the tag first, paged alike.
import { accountEntity } from '../entities/account.js';
import { Errors } from '../errors.js';
import { TAG_NAME } from '../federation/tag-routes.js';
import type { Request } from '../http/request.js';
import type { Reply } from '../http/types.js';
import type { Account } from '../store/accounts.js';
import type { FollowStore } from '../store/follows.js';
import type { StatusStore } from '../store/statuses.js';
import type { TagStore } from '../store/tags.js';
import type { TimelineStore } from '../store/timelines.js';
import type { LocalUris } from '../urls/local-uris.js';
import type { StatusViews } from '../views/status-views.js';
import type { WebDeps } from './deps.js';
import { html } from './html.js';
import { negotiatedPageReply } from './layout.js';
import { olderPage } from './older-link.js';
import { openGraphHead } from './open-graph.js';
import { linkedPostHtml } from './post-html.js';

export interface ProfilePageDeps {
  readonly follows: FollowStore;
  readonly statuses: StatusStore;
  readonly timelines: TimelineStore;
  readonly views: StatusViews;
  readonly uris: LocalUris;
  /** The member's featured hashtags. */
  readonly tags: TagStore;
}

export function profilePage(d: WebDeps, p: ProfilePageDeps) {
  const { config } = d;
  const posts = linkedPostHtml(config.baseUrl);
  return async (req: Request, a: Account, tagged?: string): Promise<Reply> => {
    // A name no hashtag may have is no page (as the tag's own page would list nothing).
    if (tagged !== undefined && !TAG_NAME.test(tagged)) throw Errors.notFound();
    const ctx = await d.auth.context(req);
    const viewer = ctx.user?.accountId ?? null;
    const page = olderPage(req);
    const [counts, tags, list, pinned] = await Promise.all([
      p.follows.counts(a.id),
      p.tags.featured(a.id),
      p.timelines.ofAccount(a.id, viewer, page, { excludeReplies: true, tagged }),
      page.maxId ? [] : p.statuses.pinnedOf(a.id, viewer, tagged),
    ]);
    const [shownPinned, shown] = await Promise.all([p.views.inContext(pinned, viewer, 'account'), p.views.inContext(list, viewer, 'account')]);
    const handle = `@${a.username}@${config.localDomain}`;
    const paragraphs = a.note.trim() ? a.note.trim().split(/\n{2,}/) : [];
    const url = tagged === undefined ? p.uris.profile(a.username) : p.uris.taggedBy(a.username, tagged);
    const title = `${a.displayName || a.username}${tagged === undefined ? '' : ` #${tagged}`}`;
    const head = openGraphHead({
      title: `${title} (${handle})`,
      description: a.note.trim(),
      url,
      type: 'profile',
      username: `${a.username}@${config.localDomain}`,
      image: accountEntity(a, config).avatar,
      siteName: config.instance.title,
      alternates: [{ type: 'application/activity+json', href: p.uris.actor(a.username) }],
    });
    const body = html`<article class="profile">
<h1>${a.displayName || a.username}</h1>
<p class="handle">${handle}${a.locked ? ' · approves followers' : ''}${a.bot ? ' · automated' : ''}</p>
${paragraphs.map((x) => html`<p>${x}</p>`)}
<p><strong>${String(counts.following)}</strong> following · <strong>${String(counts.followers)}</strong> followers</p>
${
  tags.length
    ? html`<section class="featured-tags"><h2>Featured hashtags</h2><ul>${tags.map(
        (t) =>
          html`<li><a href="${p.uris.taggedBy(a.username, t.name)}" rel="tag">#${t.name}</a> <span class="count">${String(t.statusesCount)} posts</span></li>`,
      )}</ul></section>`
    : ''
}
</article>
${shownPinned.length ? html`<section class="pinned"><h2>Pinned</h2>${shownPinned.map(posts)}</section>` : ''}
${tagged === undefined ? '' : html`<h2 class="tagged">Posts tagged <a href="${p.uris.tag(tagged)}" rel="tag">#${tagged}</a> · <a href="${p.uris.profile(a.username)}">all posts</a></h2>`}
<section class="posts">${shown.length ? shown.map(posts) : html`<p class="empty">${page.maxId ? 'No older posts.' : tagged === undefined ? 'No posts yet.' : 'No posts with this tag yet.'}</p>`}</section>
${list.length === page.limit ? html`<p><a class="older" rel="next" href="?max_id=${list[list.length - 1]!.id}">Older posts</a></p>` : ''}`;
    const link = `<${p.uris.actor(a.username)}>; rel="alternate"; type="application/activity+json"`;
    return negotiatedPageReply(title, body, { instanceTitle: config.instance.title, head, ctx, link });
  };
}
