// Sign-up (when registrations are not closed) and the admins' approval list for sign-ups awaiting review.
import { z } from 'zod';
import { hashPassword } from '../auth/password.js';
import { RoleId } from '../auth/permissions.js';
import { Errors } from '../errors.js';
import { isId } from '../store/ids.js';
import { redirect } from '../http/respond.js';
import { type Reply, type Route, route } from '../http/types.js';
import { DuplicateError, type LocalUser } from '../store/users.js';
import { USERNAME_PATTERN, RESERVED_USERNAMES } from '../auth/usernames.js';
import type { WebDeps } from './deps.js';
import { html } from './html.js';
import { csrfField, formPost, pageReply, staff, VISITOR } from './layout.js';
import type { PageContext } from './session.js';

const SignUpForm = z
  .object({
    username: z
      .string()
      .trim()
      .min(1, 'Username is required')
      .max(30, 'Username must be at most 30 characters')
      .regex(USERNAME_PATTERN, 'Username may contain only letters, numbers, underscores, dots and dashes')
      .refine((u) => !RESERVED_USERNAMES.has(u.toLowerCase()), 'That username is reserved'),
    email: z.string().trim().max(320).email('Enter a valid e-mail address'),
    password: z.string().min(8, 'Password must be at least 8 characters').max(1000),
    password_confirmation: z.string(),
    reason: z.string().trim().max(1000).optional(),
  })
  .refine((f) => f.password === f.password_confirmation, { message: 'Passwords do not match', path: ['password_confirmation'] });

export function registrationPageRoutes(d: WebDeps, usersChanged: () => void): Route[] {
  const title = d.config.instance.title;
  const mode = d.config.registrations;

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
        const throttled = await d.signUpThrottle.hit(`ip:${req.ip}`);
        if (!throttled.allowed) return form(ctx, 429, `Too many sign-ups from your address. Try again in ${throttled.retryAfterSeconds} seconds.`, values);
        const parsed = SignUpForm.safeParse(body);
        if (!parsed.success) return form(ctx, 422, parsed.error.issues[0]!.message, values);
        const f = parsed.data;
        let user: LocalUser;
        try {
          user = await d.users.create({
            username: f.username,
            email: f.email,
            passwordHash: await hashPassword(f.password),
            roleId: RoleId.user,
            approved: mode === 'open',
            signUpReason: f.reason ?? null,
          });
        } catch (e) {
          if (e instanceof DuplicateError)
            return form(ctx, 422, e.field === 'email' ? 'That e-mail address is already in use' : 'That username is taken', values);
          throw e;
        }
        d.log.info({ user: user.userId, approved: user.approved }, 'signed up');
        usersChanged();
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
