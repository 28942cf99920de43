// The public profile page browsers get at /@name and /users/name (ActivityPub clients get the actor document).
import type { Request } from '../http/request.js';
import type { Reply } from '../http/types.js';
import type { Account } from '../store/accounts.js';
import type { FollowStore } from '../store/follows.js';
import type { WebDeps } from './deps.js';
import { html } from './html.js';
import { pageReply } from './layout.js';

export function profilePage(d: WebDeps, follows: FollowStore) {
  return async (req: Request, a: Account): Promise<Reply> => {
    const ctx = await d.auth.context(req);
    const counts = await follows.counts(a.id);
    const handle = `@${a.username}@${d.config.localDomain}`;
    const paragraphs = a.note.trim() ? a.note.trim().split(/\n{2,}/) : [];
    const body = html`<article class="profile">
<h1>${a.displayName || a.username}</h1>
<p class="handle">${handle}${a.locked ? ' · approves followers' : ''}${a.bot ? ' · automated' : ''}</p>
${paragraphs.map((p) => html`<p>${p}</p>`)}
<p><strong>${String(counts.following)}</strong> following · <strong>${String(counts.followers)}</strong> followers</p>
</article>`;
    return pageReply(200, a.displayName || a.username, body, d.config.instance.title, ctx, []);
  };
}
