// A single post as a page (/web/statuses/:id): its author, text and attachments, for whoever may read it. Small on
// purpose: it is where a post's media is seen in a browser, through our proxy, with the viewer's
// `media:origin_fallback` deciding whether the page may fall back to the origin (web/media-html.ts). The author's name
// links to their profile page (a remote one's at /@name@host); a boost's page shows the boosted post and its booster.
import { Errors } from '../errors.js';
import { type Route, route } from '../http/types.js';
import type { Account, AccountStore } from '../store/accounts.js';
import { isId } from '../store/ids.js';
import { htmlToPlainText } from '../text/plain-text.js';
import type { MediaStore } from '../store/media.js';
import type { MemberPreferenceStore } from '../store/member-preferences.js';
import type { StatusStore } from '../store/statuses.js';
import type { MediaUrls } from '../urls/media-urls.js';
import type { WebDeps } from './deps.js';
import { html } from './html.js';
import { pageReply, VISITOR } from './layout.js';
import { attachmentsHtml, fallbackScriptHtml, mediaPagePolicy } from './media-html.js';
import { profilePath } from './post-html.js';

export interface StatusPageDeps {
  readonly accounts: AccountStore;
  readonly statuses: StatusStore;
  readonly media: MediaStore;
  readonly mediaUrls: MediaUrls;
  readonly memberPreferences: MemberPreferenceStore;
}

const acctOf = (a: Account) => (a.domain ? `${a.username}@${a.domain}` : a.username);
const nameLink = (a: Account, cls: string) => html`<a class="${cls}" href="${profilePath(acctOf(a))}">${a.displayName || a.username}</a>`;

export function statusPageRoutes(web: WebDeps, d: StatusPageDeps): Route[] {
  return [
    route({
      method: 'GET',
      path: '/web/statuses/:id',
      auth: VISITOR,
      handler: async (req, ctx) => {
        const id = req.params['id']!;
        const viewer = ctx.user?.accountId ?? null;
        const asked = isId(id) ? await d.statuses.byId(id) : undefined;
        if (!asked || asked.deletedAt || !(await d.statuses.canSee(asked, viewer))) throw Errors.notFound();
        const s = asked.reblogOfId ? await d.statuses.readable(asked.reblogOfId, viewer) : asked;
        if (!s || s.deletedAt) throw Errors.notFound();
        const [author, booster] = await Promise.all([d.accounts.byId(s.accountId), s === asked ? undefined : d.accounts.byId(asked.accountId)]);
        if (!author) throw Errors.notFound();
        const shown = ((await d.media.ofStatuses([s.id])).get(s.id) ?? []).map((m) => ({ m, url: d.mediaUrls.url(m, s.visibility) }));
        const fallback = ctx.user ? await d.memberPreferences.originFallback(ctx.user.userId) : false;
        const body = html`<article class="status" data-status-id="${s.id}">
${booster ? html`<p class="boosted-by">${nameLink(booster, 'booster')} @${acctOf(booster)} boosted</p>` : ''}
<p class="author"><strong>${nameLink(author, 'author')}</strong> @${acctOf(author)}</p>
${s.spoilerText ? html`<p class="spoiler">${s.spoilerText}</p>` : ''}
${htmlToPlainText(s.content)
  .split(/\n+/)
  .map((line) => html`<p>${line}</p>`)}
${fallbackScriptHtml(fallback)}
<div class="attachments">${attachmentsHtml(shown, fallback)}</div>
<p><small>${s.createdAt.toISOString().slice(0, 16).replace('T', ' ')} UTC</small></p>
</article>`;
        const reply = pageReply(200, `${author.displayName || author.username}: post`, body, web.config.instance.title, ctx);
        return { ...reply, headers: { ...reply.headers, 'Content-Security-Policy': mediaPagePolicy(shown, fallback) } };
      },
    }),
  ];
}
