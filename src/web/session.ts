// Who is using a page and the CSRF token for its forms. The CSRF token is an HMAC of a random per-browser cookie,
// so a cross-site form (which cannot read the cookie or compute the HMAC) never carries a valid token.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { clearCookie, serializeCookie } from '../http/cookies.js';
import type { Request } from '../http/request.js';
import type { PageCaller, PageGate } from '../http/types.js';
import type { SessionStore } from '../store/sessions.js';
import { SESSION_TTL_DAYS } from '../store/sessions.js';
import type { LocalUser, UserStore } from '../store/users.js';

export const SESSION_COOKIE = 'stoa_session';
export const CSRF_COOKIE = 'stoa_csrf';

/** Who is using a page (the front end reads it for every page's rule: http/types.ts PageRule). */
export type PageContext = PageCaller;

export class WebAuth implements PageGate {
  constructor(
    private readonly sessions: SessionStore,
    private readonly users: UserStore,
    private readonly secret: Buffer,
    private readonly secure: boolean,
  ) {}

  async context(req: Request): Promise<PageContext> {
    const setCookies: string[] = [];
    let csrfSeed = req.cookies[CSRF_COOKIE];
    if (!csrfSeed || csrfSeed.length < 16) {
      csrfSeed = randomBytes(18).toString('base64url');
      setCookies.push(serializeCookie(CSRF_COOKIE, csrfSeed, { secure: this.secure }));
    }
    let user: LocalUser | undefined;
    const sid = req.cookies[SESSION_COOKIE];
    if (sid) {
      const userId = await this.sessions.resolve(sid);
      if (userId) user = await this.users.byUserId(userId);
      if (!user || user.disabled || user.suspended || !user.approved) {
        user = undefined;
        setCookies.push(clearCookie(SESSION_COOKIE, this.secure));
      }
    }
    return { user, csrfToken: this.tokenFor(csrfSeed), setCookies };
  }

  /** True when the form's token matches this browser's CSRF cookie. */
  csrfValid(req: Request, token: unknown): boolean {
    const seed = req.cookies[CSRF_COOKIE];
    if (!seed || typeof token !== 'string') return false;
    const expected = Buffer.from(this.tokenFor(seed));
    const given = Buffer.from(token);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }

  async signIn(user: LocalUser, req: Request): Promise<string> {
    const secret = await this.sessions.create(user.userId, req.ip, req.headers['user-agent'] ?? '');
    return serializeCookie(SESSION_COOKIE, secret, { secure: this.secure, maxAgeSeconds: SESSION_TTL_DAYS * 86400 });
  }

  async signOut(req: Request): Promise<string> {
    const sid = req.cookies[SESSION_COOKIE];
    if (sid) await this.sessions.destroy(sid);
    return clearCookie(SESSION_COOKIE, this.secure);
  }

  private tokenFor(seed: string): string {
    return createHmac('sha256', this.secret).update(seed).digest('base64url');
  }
}

/** A return path after sign-in: only local absolute paths, never another origin. */
export function safeReturnTo(value: unknown): string {
  // Printable ASCII only: tabs and newlines are dropped by URL parsers (so "/\t/evil" becomes "//evil") and CR/LF
  // would split headers; "//" and "\" both mean another host to browsers.
  if (typeof value !== 'string' || value.length > 2000 || !/^\/(?![/\\])[\x21-\x7e]*$/.test(value) || value.includes('\\')) return '/';
  return value;
}
