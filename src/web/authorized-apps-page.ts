// Settings, Authorized applications: the apps a member approved, their scopes and last use, and Revoke, which
// revokes every token the member gave that app (and unexchanged codes); every node hears it through AUTH_CHANNEL.
import type { OAuthDeps } from '../http/oauth-deps.js';
import { Errors } from '../errors.js';
import { redirect } from '../http/respond.js';
import { type Route, route } from '../http/types.js';
import { isId } from '../store/ids.js';
import type { WebDeps } from './deps.js';
import { html } from './html.js';
import { csrfField, formPost, MEMBER, pageReply } from './layout.js';

const PATH = '/settings/applications';

function when(d: Date | null): string {
  return d ? `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC` : 'never';
}

export function authorizedAppsPageRoutes(web: WebDeps, d: OAuthDeps): Route[] {
  const title = web.config.instance.title;
  const FORM = { ...MEMBER, returnTo: () => PATH };
  return [
    route({
      method: 'GET',
      path: PATH,
      auth: MEMBER,
      handler: async (req, ctx) => {
        const { user } = ctx;
        const apps = await d.tokens.authorizedApps(user.userId);
        const notice = req.query['revoked'] === '1' ? html`<p class="notice" id="revoked-notice" role="status">Access revoked.</p>` : '';
        return pageReply(
          200,
          'Authorized applications',
          html`
          <nav><strong>Authorized applications</strong><a href="/">Home</a></nav>
          ${notice}
          ${
            apps.length === 0
              ? html`<p id="no-apps">You have not authorized any application.</p>`
              : html`
          <table id="authorized-apps"><thead><tr><th>Application</th><th>Scopes</th><th>Last used</th><th></th></tr></thead><tbody>
          ${apps.map(
            (a) => html`<tr data-app-id="${a.appId}" data-app-name="${a.name}">
            <td>${a.website ? html`<a href="${a.website}" rel="noopener noreferrer">${a.name}</a>` : a.name}<br><small>authorized ${when(a.authorizedAt)}</small></td>
            <td class="scopes">${a.scopes.join(' ')}</td>
            <td class="last-used">${when(a.lastUsedAt)}</td>
            <td><form class="inline" method="post" action="${PATH}/${a.appId}/revoke">${csrfField(ctx)}<button class="secondary" type="submit">Revoke</button></form></td>
          </tr>`,
          )}
          </tbody></table>`
          }`,
          title,
          ctx,
        );
      },
    }),
    route({
      ...formPost(web.config, `${PATH}/:id/revoke`),
      auth: FORM,
      handler: async (req, { user }) => {
        const appId = req.params['id']!;
        if (!isId(appId)) throw Errors.notFound();
        const n = await d.authEvents.publish(
          (nonce) => d.tokens.revokeAppForUser(user.userId, appId, nonce),
          (count) => count > 0,
        );
        d.log.info({ user: user.userId, app: appId, tokens: n }, 'application access revoked');
        return redirect(`${PATH}?revoked=1`, undefined, 303);
      },
    }),
  ];
}
