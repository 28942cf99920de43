// The search page (/search?q=): the search of GET /api/v2/search, injected by routes.ts (web may not import api), so
// the page finds what a client finds. A signed-in member searches as with resolve=true (a handle `@name@host` is
// looked up on its server when we do not know it yet); an anonymous visitor gets the form and what the API gives
// anonymous searches (local results only, nothing fetched from elsewhere). Each account links to its profile page.
import { ApiError } from '../errors.js';
import { type Route, route } from '../http/types.js';
import type { WebDeps } from './deps.js';
import { type Html, html } from './html.js';
import { pageReply, VISITOR } from './layout.js';
import { postHtml, type PostEntity, profilePath } from './post-html.js';

/** The parts of an Account entity the page shows. */
interface FoundAccount {
  readonly acct: string;
  readonly username: string;
  readonly display_name: string;
  readonly avatar: string;
}

export interface SearchPageDeps {
  /** api/search.ts's search: query parameters and the viewer's account (null: anonymous); refusals thrown. */
  readonly search: (
    query: Readonly<Record<string, unknown>>,
    viewer: string | null,
  ) => Promise<{
    readonly accounts: readonly FoundAccount[];
    readonly statuses: readonly PostEntity[];
    readonly hashtags: readonly { name: string; url: string }[];
  }>;
}

const accountHtml = (a: FoundAccount): Html =>
  html`<li class="account"><img class="avatar" src="${a.avatar}" alt="" width="40" height="40"> <a class="account-link" href="${profilePath(a.acct)}">${a.display_name || a.username}</a> <span class="acct">@${a.acct}</span></li>`;

export function searchPageRoutes(web: WebDeps, d: SearchPageDeps): Route[] {
  const title = web.config.instance.title;
  return [
    route({
      method: 'GET',
      path: '/search',
      auth: VISITOR,
      handler: async (req, ctx) => {
        const viewer = ctx.user?.accountId ?? null;
        const q = typeof req.query['q'] === 'string' ? req.query['q'].trim() : '';
        let results: Html = html``;
        let status = 200;
        if (q) {
          try {
            const found = await d.search({ q, ...(viewer !== null && { resolve: 'true' }) }, viewer);
            const none = found.accounts.length + found.statuses.length + found.hashtags.length === 0;
            results = none
              ? html`<p id="no-results">Nothing found for ${q}.</p>`
              : html`
${found.accounts.length ? html`<h2>Accounts</h2><ul id="accounts">${found.accounts.map(accountHtml)}</ul>` : ''}
${found.hashtags.length ? html`<h2>Hashtags</h2><ul id="hashtags">${found.hashtags.map((t) => html`<li><a href="${t.url}">#${t.name}</a></li>`)}</ul>` : ''}
${found.statuses.length ? html`<h2>Posts</h2><section id="statuses">${found.statuses.map(postHtml)}</section>` : ''}`;
          } catch (e) {
            if (!(e instanceof ApiError)) throw e;
            status = e.status;
            results = html`<p class="error" id="error">${e.error}</p>`;
          }
        }
        const body = html`<nav><strong>Search</strong><a href="/">Home</a></nav>
<form id="search" method="get" action="/search"><label for="q">Accounts, hashtags${viewer !== null ? ', posts' : ''}</label>
<input type="text" id="q" name="q" value="${q}" maxlength="500" placeholder="@name@example.social"><button type="submit">Search</button></form>
${viewer === null ? html`<p class="notice">Only what this server already knows is searched. <a href="/auth/sign_in?return_to=${encodeURIComponent(req.path + (q ? `?q=${encodeURIComponent(q)}` : ''))}">Sign in</a> to find accounts on other servers.</p>` : ''}
${results}`;
        return pageReply(status, q ? `Search: ${q}` : 'Search', body, title, ctx);
      },
    }),
  ];
}
