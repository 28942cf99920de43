// Sign-in, sign-out and the home page. Bad credentials always get one generic message; attempts are throttled per
// address and per login; disabled and unapproved accounts cannot sign in.
import { z } from 'zod';
import { decoyHash, verifyPassword } from '../auth/password.js';
import { hasPermission } from '../auth/permissions.js';
import { redirect } from '../http/respond.js';
import { type Reply, type Route, route } from '../http/types.js';
import type { WebDeps } from './deps.js';
import { html } from './html.js';
import { csrfField, formPost, pageReply, VISITOR } from './layout.js';
import { safeReturnTo, type PageContext } from './session.js';

const SignInForm = z.object({
  authenticity_token: z.string().optional(),
  login: z.string().trim().min(1).max(320),
  password: z.string().min(1).max(1000),
  return_to: z.string().optional(),
});

const GENERIC_FAILURE = 'Invalid username, e-mail or password.';

export function authPageRoutes(d: WebDeps): Route[] {
  const title = d.config.instance.title;

  const signInPage = (ctx: PageContext, status: number, opts: { error?: string; login?: string; returnTo: string }): Reply =>
    pageReply(
      status,
      'Sign in',
      html`
      <h1>Sign in to ${title}</h1>
      ${opts.error ? html`<p class="error" role="alert">${opts.error}</p>` : ''}
      <form method="post" action="/auth/sign_in">
        ${csrfField(ctx)}
        <input type="hidden" name="return_to" value="${opts.returnTo}">
        <label for="login">Username or e-mail</label>
        <input type="text" id="login" name="login" autocomplete="username" required value="${opts.login ?? ''}">
        <label for="password">Password</label>
        <input type="password" id="password" name="password" autocomplete="current-password" required>
        <button type="submit">Sign in</button>
      </form>
      ${d.config.registrations !== 'closed' ? html`<p><a href="/auth/sign_up">Create an account</a></p>` : ''}`,
      title,
      ctx,
    );

  return [
    route({
      method: 'GET',
      path: '/',
      auth: VISITOR,
      handler: async (_req, ctx) => {
        const u = ctx.user;
        const body = u
          ? html`<nav><strong>${title}</strong><form class="inline" method="post" action="/auth/sign_out">${csrfField(ctx)}<button class="secondary" type="submit">Sign out</button></form></nav>
              <p>Signed in as <strong id="signed-in-as">@${u.username}</strong> (${u.roleName === 'everyone' ? 'member' : u.roleName}).</p>
              <p><a href="/search">Search</a></p>
              <p><a href="/settings/applications">Authorized applications</a></p>
              ${hasPermission(u.permissions, 'manageUsers') ? html`<p><a href="/admin/registrations">Pending registrations</a></p>` : ''}
              ${hasPermission(u.permissions, 'manageReports') ? html`<p><a href="/admin/reports">Reports</a></p>` : ''}
              ${hasPermission(u.permissions, 'manageFederation') ? html`<p><a href="/admin/history">History</a></p><p><a href="/admin/domain_blocks">Domain blocks</a></p>` : ''}
              ${hasPermission(u.permissions, 'manageAnnouncements') ? html`<p><a href="/admin/announcements">Announcements</a></p>` : ''}
              ${hasPermission(u.permissions, 'manageRules') ? html`<p><a href="/admin/rules">Rules</a></p>` : ''}`
          : html`<h1>${title}</h1><p>${d.config.instance.description}</p><p><a href="/auth/sign_in">Sign in</a> · <a href="/search">Search</a></p>`;
        return pageReply(200, title, body, title, ctx);
      },
    }),
    route({
      method: 'GET',
      path: '/auth/sign_in',
      auth: VISITOR,
      handler: async (req, ctx) => {
        const returnTo = safeReturnTo(req.query['return_to']);
        if (ctx.user) return redirect(returnTo);
        return signInPage(ctx, 200, { returnTo });
      },
    }),
    route({
      ...formPost(d.config, '/auth/sign_in'),
      // An expired form is shown again, keeping where the visitor was going.
      auth: { ...VISITOR, csrf: 'handler' },
      handler: async (req, ctx) => {
        const form = SignInForm.safeParse(req.fields);
        const returnTo = safeReturnTo(form.success ? form.data.return_to : undefined);
        if (!d.auth.csrfValid(req, req.fields['authenticity_token'])) {
          return signInPage(ctx, 403, { error: 'Your form expired or was not sent from this site. Please try again.', returnTo });
        }
        if (!form.success) return signInPage(ctx, 422, { error: GENERIC_FAILURE, returnTo });
        const { login, password } = form.data;
        // An address already blocked is not counted against logins, so it cannot churn the login table.
        const byIp = await d.signInThrottle.hit(`ip:${req.ip}`);
        const loginKey = `login:${login.toLowerCase()}`;
        const byLogin = byIp.allowed ? await d.signInThrottle.hit(loginKey) : await d.signInThrottle.check(loginKey);
        if (!byIp.allowed || !byLogin.allowed) {
          const wait = Math.max(byIp.retryAfterSeconds, byLogin.retryAfterSeconds);
          const reply = signInPage(ctx, 429, { error: `Too many sign-in attempts. Try again in ${wait} seconds.`, login, returnTo });
          return { ...reply, headers: { ...reply.headers, 'Retry-After': String(wait) } };
        }
        const user = await d.users.byLogin(login);
        const ok = await verifyPassword(password, user?.passwordHash ?? (await decoyHash()));
        if (!user || !ok) {
          d.log.info({ ip: req.ip }, 'sign-in failed');
          return signInPage(ctx, 401, { error: GENERIC_FAILURE, login, returnTo });
        }
        if (user.disabled || user.suspended) return signInPage(ctx, 403, { error: 'Your login is currently disabled.', login, returnTo });
        if (!user.approved) return signInPage(ctx, 403, { error: 'Your login is currently pending approval.', login, returnTo });
        const cookie = await d.auth.signIn(user, req);
        await d.users.recordSignIn(user.userId, req.ip);
        d.log.info({ user: user.userId }, 'signed in');
        return redirect(returnTo, { 'Set-Cookie': [...ctx.setCookies, cookie] }, 303);
      },
    }),
    route({
      ...formPost(d.config, '/auth/sign_out'),
      // An expired form says so on a page of its own (the visitor may be signed out already).
      auth: { ...VISITOR, csrf: 'handler' },
      handler: async (req, ctx) => {
        if (!d.auth.csrfValid(req, req.fields['authenticity_token'])) {
          return pageReply(403, 'Sign out', html`<p class="error">Your form expired. <a href="/">Go back</a> and try again.</p>`, title, ctx);
        }
        const cookie = await d.auth.signOut(req);
        return redirect('/auth/sign_in', { 'Set-Cookie': [...ctx.setCookies, cookie] }, 303);
      },
    }),
  ];
}
