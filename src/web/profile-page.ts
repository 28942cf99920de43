// The public profile page browsers get at /@name and /users/name (ActivityPub clients get the actor document).
import type { Request } from '../http/request.js';
import type { Reply } from '../http/types.js';
import type { Account } from '../store/accounts.js';
import type { FollowStore } from '../store/follows.js';
import type { TagStore } from '../store/tags.js';
import type { LocalUris } from '../urls/local-uris.js';
import type { WebDeps } from './deps.js';
import { html } from './html.js';
import { pageReply } from './layout.js';

/** `featured`: where the member's featured hashtags are read, and their links made. */
export function profilePage(d: WebDeps, follows: FollowStore, featured: { readonly tags: TagStore; readonly uris: LocalUris }) {
  return async (req: Request, a: Account): Promise<Reply> => {
    const ctx = await d.auth.context(req);
    const [counts, tags] = await Promise.all([follows.counts(a.id), featured.tags.featured(a.id)]);
    const handle = `@${a.username}@${d.config.localDomain}`;
    const paragraphs = a.note.trim() ? a.note.trim().split(/\n{2,}/) : [];
    const body = html`<article class="profile">
<h1>${a.displayName || a.username}</h1>
<p class="handle">${handle}${a.locked ? ' · approves followers' : ''}${a.bot ? ' · automated' : ''}</p>
${paragraphs.map((p) => html`<p>${p}</p>`)}
<p><strong>${String(counts.following)}</strong> following · <strong>${String(counts.followers)}</strong> followers</p>
${
  tags.length
    ? html`<section class="featured-tags"><h2>Featured hashtags</h2><ul>${tags.map(
        (t) =>
          html`<li><a href="${featured.uris.taggedBy(a.username, t.name)}" rel="tag">#${t.name}</a> <span class="count">${String(t.statusesCount)} posts</span></li>`,
      )}</ul></section>`
    : ''
}
</article>`;
    return pageReply(200, a.displayName || a.username, body, d.config.instance.title, ctx, []);
  };
}
