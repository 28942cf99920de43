// Page replies: the layout, cookies set by the page context, and the error page the front end uses.
import { hasPermission, type PermissionName } from '../auth/permissions.js';
import { Errors } from '../errors.js';
import type { Request } from '../http/request.js';
import { html as htmlReply, redirect } from '../http/respond.js';
import type { Config } from '../../config/schema.js';
import type { Reply } from '../http/types.js';
import { html, page, type Html } from './html.js';
import type { PageContext, WebAuth } from './session.js';

export function pageReply(status: number, title: string, body: Html, instanceTitle: string, ctx?: PageContext, extraCookies: string[] = []): Reply {
  const cookies = [...(ctx?.setCookies ?? []), ...extraCookies];
  return htmlReply(status, page(title, body, { instanceTitle }), cookies.length ? { 'Set-Cookie': cookies } : undefined);
}

export function errorPage(instanceTitle: string) {
  return (status: number, message: string): Reply =>
    pageReply(
      status,
      `Error ${status}`,
      html`<h1>${status === 404 ? 'Page not found' : 'Something went wrong'}</h1><p class="error">${message}</p><p><a href="/">Home</a></p>`,
      instanceTitle,
    );
}

export function csrfField(ctx: PageContext): Html {
  return html`<input type="hidden" name="authenticity_token" value="${ctx.csrfToken}">`;
}

/** A page form's POST route: the body is read as form fields, within the form size limit whatever the claimed type. */
export function formPost(config: Config, path: string) {
  return { method: 'POST', path, body: true, maxBodyBytes: config.limits.formBytes } as const;
}

/**
 * A staff page's context: a visitor who is not signed in is sent to sign in (`denied`), a member whose role lacks
 * the permission is refused (403).
 */
export async function staffContext(auth: WebAuth, req: Request, permission: PermissionName): Promise<{ ctx: PageContext; denied?: Reply }> {
  const ctx = await auth.context(req);
  if (!ctx.user) return { ctx, denied: redirect(`/auth/sign_in?return_to=${encodeURIComponent(req.path)}`) };
  if (!hasPermission(ctx.user.permissions, permission)) throw Errors.forbidden();
  return { ctx };
}
