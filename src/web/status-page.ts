// A single post as a page (/web/statuses/:id): its author, text and attachments, for whoever may read it. Small on
// purpose: it is where a post's media is seen in a browser, through our proxy, with the viewer's
// `media:origin_fallback` deciding whether the page may fall back to the origin (web/media-html.ts). The author's name
// links to their profile page (a remote one's at /@name@host); a boost's page shows the boosted post and its booster.
// The article is also the heart of a local post's public page at its URL (web/public-status-page.ts).
import { Errors } from '../errors.js';
import type { PageCaller } from '../http/types.js';
import { type Route, route } from '../http/types.js';
import type { Account, AccountStore } from '../store/accounts.js';
import { isId } from '../store/ids.js';
import { htmlToPlainText } from '../text/plain-text.js';
import type { MediaStore } from '../store/media.js';
import type { MemberPreferenceStore } from '../store/member-preferences.js';
import type { Status, StatusStore } from '../store/statuses.js';
import type { MediaUrls } from '../urls/media-urls.js';
import type { WebDeps } from './deps.js';
import { html, type Html } from './html.js';
import { pageReply, VISITOR } from './layout.js';
import { attachmentsHtml, fallbackScriptHtml, mediaPagePolicy, type ShownMedia } from './media-html.js';
import { profilePath } from './post-html.js';

export interface StatusPageDeps {
  readonly accounts: AccountStore;
  readonly statuses: StatusStore;
  readonly media: MediaStore;
  readonly mediaUrls: MediaUrls;
  readonly memberPreferences: MemberPreferenceStore;
}

/** A status as its page shows it: the post (through a boost, the boosted one), its author, booster and media. */
export interface ShownStatus {
  readonly status: Status;
  readonly author: Account;
  readonly booster?: Account;
  readonly media: readonly ShownMedia[];
  /** The viewer's `media:origin_fallback`. */
  readonly fallback: boolean;
}

const acctOf = (a: Account) => (a.domain ? `${a.username}@${a.domain}` : a.username);
const nameLink = (a: Account, cls: string) => html`<a class="${cls}" href="${profilePath(acctOf(a))}">${a.displayName || a.username}</a>`;

/** What the page of `asked` shows the caller, who may read it (checked by the caller); 404 when it is gone. */
export async function shownStatus(d: StatusPageDeps, asked: Status, ctx: PageCaller): Promise<ShownStatus> {
  const viewer = ctx.user?.accountId ?? null;
  const s = asked.reblogOfId ? await d.statuses.readable(asked.reblogOfId, viewer) : asked;
  if (!s || s.deletedAt) throw Errors.notFound();
  const [author, booster] = await Promise.all([d.accounts.byId(s.accountId), s === asked ? undefined : d.accounts.byId(asked.accountId)]);
  if (!author) throw Errors.notFound();
  const media = ((await d.media.ofStatuses([s.id])).get(s.id) ?? []).map((m) => ({ m, url: d.mediaUrls.url(m, s.visibility) }));
  const fallback = ctx.user ? await d.memberPreferences.originFallback(ctx.user.userId) : false;
  return { status: s, author, booster, media, fallback };
}

export function statusArticle({ status: s, author, booster, media, fallback }: ShownStatus): Html {
  return html`<article class="status" data-status-id="${s.id}">
${booster ? html`<p class="boosted-by">${nameLink(booster, 'booster')} @${acctOf(booster)} boosted</p>` : ''}
<p class="author"><strong>${nameLink(author, 'author')}</strong> @${acctOf(author)}</p>
${s.spoilerText ? html`<p class="spoiler">${s.spoilerText}</p>` : ''}
${htmlToPlainText(s.content)
  .split(/\n+/)
  .map((line) => html`<p>${line}</p>`)}
${fallbackScriptHtml(fallback)}
<div class="attachments">${attachmentsHtml(media, fallback)}</div>
<p><small>${s.createdAt.toISOString().slice(0, 16).replace('T', ' ')} UTC</small></p>
</article>`;
}

/** The CSP of a page showing the status's media. */
export const statusPolicy = (x: ShownStatus) => mediaPagePolicy(x.media, x.fallback);

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
        const shown = await shownStatus(d, asked, ctx);
        const reply = pageReply(200, `${shown.author.displayName || shown.author.username}: post`, statusArticle(shown), web.config.instance.title, ctx);
        return { ...reply, headers: { ...reply.headers, 'Content-Security-Policy': statusPolicy(shown) } };
      },
    }),
  ];
}
