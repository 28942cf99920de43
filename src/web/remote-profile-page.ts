// A remote Person's or Service's profile page at /@name@host (issue 17): header, bio, fields, counts, the posts we
// hold newest first (delivered and history alike), and the history panel. A signed-in member opening it asks for
// the initial fetch as the API's first page of statuses does (the same profileViewed); "Load older posts" is the
// same request as POST /api/v1/accounts/:id/remote_history/fetch. Anonymous visitors read what is held, nothing more.
import { accountEntity } from '../entities/account.js';
import { Errors } from '../errors.js';
import type { Request } from '../http/request.js';
import { html as htmlReply, redirect } from '../http/respond.js';
import { type PageRule, type Reply, type Route, route } from '../http/types.js';
import type { Account, AccountStore } from '../store/accounts.js';
import type { HistorySettingsStore } from '../store/history-settings.js';
import { idleRecord, type RemoteHistoryStore } from '../store/remote-history.js';
import type { TimelineStore } from '../store/timelines.js';
import type { StatusViews } from '../views/status-views.js';
import type { WebDeps } from './deps.js';
import { historyInProgress, historyPanel } from './history-panel.js';
import { Html, html, page } from './html.js';
import { formPost, MEMBER } from './layout.js';
import { postHtml, type PostEntity } from './post-html.js';

/** Posts shown at once: the API's largest page. */
const POSTS_SHOWN = 40;
/** Seconds between reloads while a fetch is queued or running. */
const REFRESH_SECONDS = 2;

export interface RemoteProfileDeps {
  readonly web: WebDeps;
  readonly accounts: AccountStore;
  readonly timelines: TimelineStore;
  readonly histories: RemoteHistoryStore;
  readonly settings: HistorySettingsStore;
  /** Statuses rendered as the API renders them, for the viewer. */
  readonly statusViews: StatusViews;
  /** What a member's first view of a remote account does (api/remote-history.ts profileViewed; never throws). */
  readonly profileViewed: (a: Account) => Promise<void>;
}

/** The remote account named by `name@host` (the part of /@name@host after the first @): 404 unknown or gone. */
async function remoteAccount(accounts: AccountStore, handle: string): Promise<Account> {
  const at = handle.indexOf('@');
  const username = handle.slice(0, at);
  const domain = handle.slice(at + 1);
  const a = at > 0 && domain ? await accounts.byHandle(username, domain) : undefined;
  if (!a || a.deletedAt || a.domain === null) throw Errors.notFound();
  return a;
}

const pathOf = (a: Account) => `/@${a.username}@${a.domain}`;

/** "in 30 seconds", "in 3 minutes" from the refusal's Retry-After carried in the query; "shortly" when it is not one. */
function waitOf(retry: unknown): string {
  const s = typeof retry === 'string' && /^\d{1,6}$/.test(retry) ? Number(retry) : null;
  if (s === null) return 'shortly';
  if (s < 90) return `in ${s} seconds`;
  const m = Math.ceil(s / 60);
  return m < 90 ? `in ${m} minutes` : `in ${Math.ceil(m / 60)} hours`;
}

export function remoteProfilePage(d: RemoteProfileDeps) {
  const { config } = d.web;
  return async (req: Request, handle: string): Promise<Reply> => {
    // Our own members under their full handle: their own page.
    const [username, domain] = handle.split('@', 2);
    if (username && domain?.toLowerCase() === config.localDomain.toLowerCase()) return redirect(`/@${encodeURIComponent(username)}`, undefined, 301);
    const a = await remoteAccount(d.accounts, handle);
    const ctx = await d.web.auth.context(req);
    const viewerId = ctx.user?.accountId ?? null;
    if (viewerId !== null) await d.profileViewed(a);
    const [record, settings, list] = await Promise.all([
      d.histories.get(a.id),
      d.settings.current(),
      d.timelines.ofAccount(a.id, viewerId, { limit: POSTS_SHOWN }),
    ]);
    const history = record ?? idleRecord(a.id, a.domain ?? '');
    const posts: readonly PostEntity[] = await d.statusViews.many(list, viewerId);
    const e = accountEntity(a, config);
    const busy = req.query['notice'] === 'busy' ? waitOf(req.query['retry']) : null;
    const body = html`<article class="profile remote">
<img class="header" src="${e.header}" alt="">
<img class="avatar" src="${e.avatar}" alt="" width="80" height="80">
<h1>${e.display_name || e.username}</h1>
<p class="handle">@${e.acct}${e.locked ? ' · approves followers' : ''}${e.bot ? ' · automated' : ''}</p>
<div class="bio">${new Html(e.note)}</div>
${e.fields.length ? html`<dl class="fields">${e.fields.map((f) => html`<dt>${f.name}</dt><dd>${new Html(f.value)}</dd>`)}</dl>` : ''}
<p class="counts"><strong>${e.statuses_count}</strong> posts · <strong>${e.following_count}</strong> following · <strong>${e.followers_count}</strong> followers</p>
<p><a href="${e.url}" rel="nofollow noopener">Open on ${a.domain}</a></p>
</article>
${busy ? html`<p class="notice" id="origin-busy">${a.domain} is already sending us as much as it may; try again ${busy}.</p>` : ''}
${historyPanel(history, settings.enabled, a.domain ?? '', ctx, `${pathOf(a)}/load_older`)}
<section class="posts">${posts.length ? posts.map(postHtml) : html`<p class="empty">No posts here yet.</p>`}</section>`;
    const head = historyInProgress(history) ? html`<meta http-equiv="refresh" content="${REFRESH_SECONDS}">` : undefined;
    const markup = page(e.display_name || e.username, body, { instanceTitle: config.instance.title, head });
    return htmlReply(200, markup, ctx.setCookies.length ? { 'Set-Cookie': ctx.setCookies } : undefined);
  };
}

/** POST /@name@host/load_older: the page's Load older posts form (members only, with the CSRF token). */
export function remoteProfileRoutes(d: RemoteProfileDeps): Route[] {
  // A visitor signs in and comes back to the profile the form was on.
  const LOAD_OLDER = { ...MEMBER, returnTo: (req: Request) => `/@${req.params['name']}` } as const satisfies PageRule;
  return [
    route({
      ...formPost(d.web.config, '/@:name/load_older'),
      auth: LOAD_OLDER,
      handler: async (req) => {
        const a = await remoteAccount(d.accounts, req.params['name']!);
        if (!(await d.settings.current()).enabled) throw Errors.forbidden('Remote history is disabled on this server');
        const outcome = await d.histories.request(a, 'older');
        return redirect(outcome.kind === 'origin_busy' ? `${pathOf(a)}?notice=busy&retry=${outcome.retryAfterSeconds}` : pathOf(a), undefined, 303);
      },
    }),
  ];
}
