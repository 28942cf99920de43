// Sign-up (when registrations are not closed) and the admins' approval list for sign-ups awaiting review.
import { Errors } from '../errors.js';
import { isId } from '../store/ids.js';
import { redirect } from '../http/respond.js';
import { type Reply, type Route, route } from '../http/types.js';
import type { RegistrationService } from '../services/registration-service.js';
import type { WebDeps } from './deps.js';
import { html } from './html.js';
import { csrfField, formPost, pageReply, staff, VISITOR } from './layout.js';
import type { PageContext } from './session.js';

export function registrationPageRoutes(d: WebDeps, registration: RegistrationService, usersChanged: () => void): Route[] {
  const title = d.config.instance.title;
  const mode = registration.mode;

  const form = (ctx: PageContext, status: number, error?: string, values: Record<string, string> = {}): Reply =>
    pageReply(
      status,
      'Sign up',
      html`
      <h1>Create an account on ${title}</h1>
      ${mode === 'approval' ? html`<p class="notice">New accounts are reviewed by the moderators before they can sign in.</p>` : ''}
      ${error ? html`<p class="error" role="alert">${error}</p>` : ''}
      <form method="post" action="/auth/sign_up">
        ${csrfField(ctx)}
        <label for="username">Username</label><input type="text" id="username" name="username" required maxlength="30" value="${values['username'] ?? ''}">
        <label for="email">E-mail</label><input type="email" id="email" name="email" required value="${values['email'] ?? ''}">
        <label for="password">Password</label><input type="password" id="password" name="password" required minlength="8" autocomplete="new-password">
        <label for="password_confirmation">Confirm password</label><input type="password" id="password_confirmation" name="password_confirmation" required autocomplete="new-password">
        ${mode === 'approval' ? html`<label for="reason">Why do you want to join?</label><textarea id="reason" name="reason" rows="3" maxlength="1000">${values['reason'] ?? ''}</textarea>` : ''}
        <button type="submit">Sign up</button>
      </form>`,
      title,
      ctx,
    );

  const STAFF = staff('manageUsers');

  return [
    route({
      method: 'GET',
      path: '/auth/sign_up',
      auth: VISITOR,
      handler: async (_req, ctx) => {
        if (mode === 'closed') throw Errors.routeNotFound();
        return ctx.user ? redirect('/') : form(ctx, 200);
      },
    }),
    route({
      ...formPost(d.config, '/auth/sign_up'),
      // The form is shown again with what was typed when its token has expired.
      auth: { ...VISITOR, csrf: 'handler' },
      handler: async (req, ctx) => {
        if (mode === 'closed') throw Errors.routeNotFound();
        const body = req.fields;
        const values = Object.fromEntries(['username', 'email', 'reason'].map((k) => [k, typeof body[k] === 'string' ? (body[k] as string) : '']));
        if (!d.auth.csrfValid(req, body['authenticity_token'])) return form(ctx, 403, 'Your form expired. Please try again.', values);
        // The rules, the throttle and the account are the service's, shared with POST /api/v1/accounts.
        const outcome = await registration.signUp(
          {
            username: body['username'],
            email: body['email'],
            password: body['password'],
            passwordConfirmation: body['password_confirmation'] ?? '',
            reason: body['reason'],
          },
          req.ip,
        );
        if (outcome.kind === 'closed') throw Errors.routeNotFound();
        if (outcome.kind === 'throttled')
          return form(ctx, 429, `Too many sign-ups from your address. Try again in ${outcome.retryAfterSeconds} seconds.`, values);
        if (outcome.kind === 'invalid') return form(ctx, 422, outcome.errors[0]!.message, values);
        const user = outcome.user;
        if (!user.approved) {
          return pageReply(
            200,
            'Sign up',
            html`<h1>Thanks for signing up</h1><p class="notice" id="pending">Your account is pending review. You can sign in once a moderator approves it.</p>`,
            title,
            ctx,
          );
        }
        const cookie = await d.auth.signIn(user, req);
        return redirect('/', { 'Set-Cookie': [...ctx.setCookies, cookie] }, 303);
      },
    }),
    route({
      method: 'GET',
      path: '/admin/registrations',
      auth: STAFF,
      handler: async (_req, ctx) => {
        const pending = await d.users.pending();
        return pageReply(
          200,
          'Pending registrations',
          html`
          <nav><strong>Pending registrations</strong><a href="/">Home</a></nav>
          ${
            pending.length === 0
              ? html`<p id="none-pending">No sign-ups are waiting for review.</p>`
              : html`
          <table><thead><tr><th>Username</th><th>E-mail</th><th>Reason</th><th></th></tr></thead><tbody>
          ${pending.map(
            (u) => html`<tr data-username="${u.username}"><td>@${u.username}</td><td>${u.email}</td><td>${u.signUpReason ?? ''}</td><td>
            <form class="inline" method="post" action="/admin/registrations/${u.userId}/approve">${csrfField(ctx)}<button type="submit">Approve</button></form>
            <form class="inline" method="post" action="/admin/registrations/${u.userId}/reject">${csrfField(ctx)}<button class="secondary" type="submit">Reject</button></form>
          </td></tr>`,
          )}
          </tbody></table>`
          }`,
          title,
          ctx,
        );
      },
    }),
    ...(['approve', 'reject'] as const).map((action) =>
      route({
        ...formPost(d.config, `/admin/registrations/:id/${action}`),
        auth: STAFF,
        handler: async (req) => {
          const id = req.params['id']!;
          if (!isId(id)) throw Errors.notFound();
          const done = action === 'approve' ? await d.users.approve(id) : await d.users.reject(id);
          if (!done) throw Errors.notFound();
          d.log.info({ user: id, action }, 'registration reviewed');
          usersChanged();
          return redirect('/admin/registrations', undefined, 303);
        },
      }),
    ),
  ];
}
