// GET /oauth/authorize: the consent page (sign in first, then Authorize or Deny); POST /oauth/authorize: the
// decision, re-validated from scratch and CSRF-protected. Approval issues a single-use code bound to the app, the
// member, the redirect URI, the scopes and the PKCE challenge.
import type { OAuthDeps } from '../http/oauth-deps.js';
import { Errors } from '../errors.js';
import { contentSecurityPolicy, redirect } from '../http/respond.js';
import { type Reply, type Route, route } from '../http/types.js';
import { callbackUrl, DESCRIPTIONS, isOob, validateAuthorization, type AuthorizationRequest } from '../oauth/authorization.js';
import { formActionSource } from '../oauth/redirect-uris.js';
import { describeScope } from '../oauth/scopes.js';
import type { WebDeps } from './deps.js';
import { html, type Html } from './html.js';
import { csrfField, formPost, pageReply, VISITOR } from './layout.js';
import type { PageContext } from './session.js';

const CODE_LIFETIME_MS = 10 * 60_000;

export function authorizePageRoutes(web: WebDeps, d: OAuthDeps): Route[] {
  const title = web.config.instance.title;

  const problemPage = (ctx: PageContext | undefined, message: string, status = 400): Reply =>
    pageReply(
      status,
      'Authorization failed',
      html`<h1>Authorization failed</h1><p class="error" id="oauth-error" role="alert">${message}</p><p><a href="/">Home</a></p>`,
      title,
      ctx,
    );

  const consentPage = (ctx: PageContext, r: AuthorizationRequest): Reply => {
    const reply = pageReply(
      200,
      `Authorize ${r.app.name}`,
      html`
      <h1>Authorize <span id="app-name">${r.app.name}</span>?</h1>
      <p>Signed in as <strong>@${ctx.user!.username}</strong>. This application will be able to:</p>
      <ul id="scopes">${r.scopes.map((s) => html`<li data-scope="${s}">${describeScope(s)} <small>(<code>${s}</code>)</small></li>`)}</ul>
      ${r.app.website ? html`<p>Website: <a href="${r.app.website}" rel="noopener noreferrer">${r.app.website}</a></p>` : ''}
      <form method="post" action="/oauth/authorize">
        ${csrfField(ctx)}
        <input type="hidden" name="client_id" value="${r.app.clientId}">
        <input type="hidden" name="redirect_uri" value="${r.redirectUri}">
        <input type="hidden" name="response_type" value="code">
        <input type="hidden" name="scope" value="${r.scopes.join(' ')}">
        ${r.state !== undefined ? html`<input type="hidden" name="state" value="${r.state}">` : ''}
        ${r.codeChallenge ? html`<input type="hidden" name="code_challenge" value="${r.codeChallenge}"><input type="hidden" name="code_challenge_method" value="S256">` : ''}
        <button type="submit" name="decision" value="approve" id="authorize">Authorize</button>
        <button type="submit" name="decision" value="deny" id="deny" class="secondary">Deny</button>
      </form>`,
      title,
      ctx,
    );
    const source = formActionSource(r.redirectUri);
    return source ? { ...reply, headers: { ...reply.headers, 'Content-Security-Policy': contentSecurityPolicy([source]) } } : reply;
  };

  const oobPage = (ctx: PageContext, heading: string, body: Html): Reply => pageReply(200, heading, html`<h1>${heading}</h1>${body}`, title, ctx);

  const decide = async (ctx: PageContext, r: AuthorizationRequest, approve: boolean): Promise<Reply> => {
    if (!approve) {
      d.log.info({ app: r.app.id, user: ctx.user!.userId }, 'authorization denied');
      if (isOob(r.redirectUri)) return oobPage(ctx, 'Authorization denied', html`<p id="oauth-denied">You denied ${r.app.name} access to your account.</p>`);
      return redirect(callbackUrl(r.redirectUri, { error: 'access_denied', error_description: DESCRIPTIONS.access_denied, state: r.state }));
    }
    const code = await d.codes.issue({
      appId: r.app.id,
      userId: ctx.user!.userId,
      redirectUri: r.redirectUri,
      scopes: r.scopes,
      codeChallenge: r.codeChallenge,
      expiresAt: new Date(d.clock.now() + CODE_LIFETIME_MS),
    });
    d.log.info({ app: r.app.id, user: ctx.user!.userId, scopes: r.scopes.join(' ') }, 'authorization approved');
    if (isOob(r.redirectUri)) {
      return oobPage(
        ctx,
        'Authorization code',
        html`<p>Copy this code and paste it into ${r.app.name}:</p><p><code id="authorization-code">${code}</code></p><p>It can be used once, within ten minutes.</p>`,
      );
    }
    return redirect(callbackUrl(r.redirectUri, { code, state: r.state }));
  };

  const validated = async (ctx: PageContext, params: Record<string, unknown>): Promise<AuthorizationRequest | Reply> => {
    const v = await validateAuthorization(params, d.apps);
    if (v.kind === 'page') return problemPage(ctx, v.message);
    if (v.kind === 'redirect') {
      if (isOob(v.redirectUri)) return problemPage(ctx, v.description);
      return redirect(callbackUrl(v.redirectUri, { error: v.error, error_description: v.description, state: v.state }));
    }
    return v.request;
  };

  return [
    // The request is checked before anyone is sent to sign in (a bad client gets its problem page), so the
    // handler reads who is signed in; its form's problems are answered on its own page.
    route({
      method: 'GET',
      path: '/oauth/authorize',
      auth: VISITOR,
      handler: async (req, ctx) => {
        const r = await validated(ctx, req.query);
        if (!('app' in r)) return r;
        if (!ctx.user) {
          const back = req.rawQuery ? `${req.path}?${req.rawQuery}` : req.path;
          return redirect(`/auth/sign_in?return_to=${encodeURIComponent(back)}`, ctx.setCookies.length ? { 'Set-Cookie': ctx.setCookies } : undefined);
        }
        return consentPage(ctx, r);
      },
    }),
    route({
      ...formPost(web.config, '/oauth/authorize'),
      auth: { ...VISITOR, csrf: 'handler' },
      handler: async (req, ctx) => {
        const f = req.fields;
        if (!web.auth.csrfValid(req, f['authenticity_token']))
          return problemPage(ctx, 'Your form expired or was not sent from this site. Please start again from the application.', 403);
        if (!ctx.user) return problemPage(ctx, 'You were signed out. Please start again from the application.', 403);
        const decision = f['decision'];
        if (decision !== 'approve' && decision !== 'deny') throw Errors.badRequest('Choose Authorize or Deny');
        const r = await validated(ctx, f);
        if (!('app' in r)) return r;
        return decide(ctx, r, decision === 'approve');
      },
    }),
  ];
}
