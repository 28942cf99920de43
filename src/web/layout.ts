// Page replies: the layout, cookies set by the page context, and the error page the front end uses.
import type { PermissionName } from '../auth/permissions.js';
import { html as htmlReply } from '../http/respond.js';
import type { Config } from '../../config/schema.js';
import type { PageRule, Reply } from '../http/types.js';
import { html, page, type Html } from './html.js';
import type { PageContext } from './session.js';

// The rules pages declare (http/types.ts PageRule), checked by the front end before the handler.
/** Anyone; the page sees who is signed in, if anyone. */
export const VISITOR = { page: 'visitor' } as const satisfies PageRule;
/** Signed-in members; a visitor is sent to sign in. */
export const MEMBER = { page: 'member' } as const satisfies PageRule;
/** Staff whose role holds the permission; a visitor is sent to sign in, a member without it refused (403). */
export function staff<const P extends PermissionName>(permission: P) {
  return { page: 'member', permission } as const satisfies PageRule;
}

export function pageReply(status: number, title: string, body: Html, instanceTitle: string, ctx?: PageContext, extraCookies: string[] = []): Reply {
  const cookies = [...(ctx?.setCookies ?? []), ...extraCookies];
  return htmlReply(status, page(title, body, { instanceTitle }), cookies.length ? { 'Set-Cookie': cookies } : undefined);
}

/**
 * A public page under content negotiation (its URL also answers ActivityPub JSON): the layout with more of the head
 * (web/open-graph.ts), `Vary: Accept` so caches keep the two apart, and the page's own CSP when it shows media.
 */
export function negotiatedPageReply(
  title: string,
  body: Html,
  opts: { instanceTitle: string; head: Html; ctx: PageContext; csp?: string; link?: string },
): Reply {
  const headers: Record<string, string | string[]> = { Vary: 'Accept' };
  if (opts.link) headers['Link'] = opts.link;
  if (opts.ctx.setCookies.length) headers['Set-Cookie'] = [...opts.ctx.setCookies];
  if (opts.csp) headers['Content-Security-Policy'] = opts.csp;
  return htmlReply(200, page(title, body, { instanceTitle: opts.instanceTitle, head: opts.head }), headers);
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
