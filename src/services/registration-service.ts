// Signing up, one way for the sign-up page (web/registration-pages.ts) and the API (api/registrations.ts, Mastodon's
// POST /api/v1/accounts): the instance's mode (open, approval, closed), one per-address throttle for both, the same
// rules for each field, and the account created. Each broken rule is named both as the page says it and as Mastodon's
// ValidationErrorFormatter does (an ERR_ code and the attribute's description).
import { z } from 'zod';
import { hashPassword } from '../auth/password.js';
import { RoleId } from '../auth/permissions.js';
import { RESERVED_USERNAMES, USERNAME_PATTERN } from '../auth/usernames.js';
import type { Throttle } from '../http/throttle.js';
import type { Logger } from '../log.js';
import { DuplicateError, type LocalUser, type UserStore } from '../store/users.js';

export type RegistrationMode = 'open' | 'approval' | 'closed';

export interface SignUpInput {
  readonly username: unknown;
  readonly email: unknown;
  readonly password: unknown;
  /** The page's second password field; the API has none. */
  readonly passwordConfirmation?: unknown;
  /** The API's terms checkbox (must be true); the page has none. */
  readonly agreement?: unknown;
  readonly reason?: unknown;
  readonly locale?: unknown;
  /** Whether a missing reason is an error (the API in approval mode, as the instance's reason_required says). */
  readonly reasonRequired?: boolean;
  /** The application signing the member up (API). */
  readonly appId?: string | null;
}

/** One broken rule: the field, Mastodon's code and description, and the page's sentence. */
export interface FieldError {
  readonly field: string;
  readonly code: string;
  readonly description: string;
  readonly message: string;
}

export type SignUpOutcome =
  | { readonly kind: 'created'; readonly user: LocalUser }
  | { readonly kind: 'invalid'; readonly errors: readonly FieldError[] }
  | { readonly kind: 'throttled'; readonly retryAfterSeconds: number }
  | { readonly kind: 'closed' };

const EMAIL = z.string().email();
/** A locale tag as clients send one (en, pt-BR, zh-Hant-TW). */
const LOCALE = /^[a-z]{2,3}(-[A-Za-z0-9]{2,8}){0,2}$/;

const err = (field: string, code: string, description: string, message: string): FieldError => ({ field, code, description, message });
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The rules the page and the API share, every broken one in field order. */
export function signUpErrors(input: SignUpInput): FieldError[] {
  const errors: FieldError[] = [];
  const username = text(input.username).trim();
  if (username === '') errors.push(err('username', 'ERR_BLANK', "can't be blank", 'Username is required'));
  else if (username.length > 30)
    errors.push(err('username', 'ERR_TOO_LONG', 'is too long (maximum is 30 characters)', 'Username must be at most 30 characters'));
  else if (!USERNAME_PATTERN.test(username)) {
    errors.push(
      err(
        'username',
        'ERR_INVALID',
        'must contain only letters, numbers and underscores',
        'Username may contain only letters, numbers, underscores, dots and dashes',
      ),
    );
  } else if (RESERVED_USERNAMES.has(username.toLowerCase())) errors.push(err('username', 'ERR_RESERVED', 'is reserved', 'That username is reserved'));
  const email = text(input.email).trim();
  if (email === '') errors.push(err('email', 'ERR_BLANK', "can't be blank", 'Enter a valid e-mail address'));
  else if (email.length > 320 || !EMAIL.safeParse(email).success) errors.push(err('email', 'ERR_INVALID', 'is invalid', 'Enter a valid e-mail address'));
  const password = text(input.password);
  if (password === '') errors.push(err('password', 'ERR_BLANK', "can't be blank", 'Password must be at least 8 characters'));
  else if (password.length < 8)
    errors.push(err('password', 'ERR_TOO_SHORT', 'is too short (minimum is 8 characters)', 'Password must be at least 8 characters'));
  else if (password.length > 1000)
    errors.push(err('password', 'ERR_TOO_LONG', 'is too long (maximum is 1000 characters)', 'Password must be at most 1000 characters'));
  if (input.passwordConfirmation !== undefined && input.passwordConfirmation !== password) {
    errors.push(err('password_confirmation', 'ERR_CONFIRMATION', "doesn't match Password", 'Passwords do not match'));
  }
  if (input.agreement !== undefined && input.agreement !== true && input.agreement !== 'true' && input.agreement !== '1') {
    errors.push(err('agreement', 'ERR_ACCEPTED', 'must be accepted', 'You must accept the terms'));
  }
  const reason = text(input.reason).trim();
  if (reason === '' && input.reasonRequired) errors.push(err('reason', 'ERR_BLANK', "can't be blank", 'Tell the moderators why you want to join'));
  else if (reason.length > 1000)
    errors.push(err('reason', 'ERR_TOO_LONG', 'is too long (maximum is 1000 characters)', 'Reason must be at most 1000 characters'));
  if (input.locale !== undefined && input.locale !== '' && !(typeof input.locale === 'string' && LOCALE.test(input.locale))) {
    errors.push(err('locale', 'ERR_INCLUSION', 'is not included in the list', 'Choose a known language'));
  }
  return errors;
}

export interface RegistrationDeps {
  readonly mode: RegistrationMode;
  readonly users: UserStore;
  /** Shared by the page and the API: sign-ups per address. */
  readonly throttle: Throttle;
  readonly log: Logger;
  /** Called after an account is created (the instance documents count users). */
  readonly onCreated: () => void;
}

export class RegistrationService {
  constructor(private readonly d: RegistrationDeps) {}

  get mode(): RegistrationMode {
    return this.d.mode;
  }

  /** Signs up from address `ip`: closed, throttled, the broken rules, or the member (approved when the mode is open). */
  async signUp(input: SignUpInput, ip: string): Promise<SignUpOutcome> {
    if (this.d.mode === 'closed') return { kind: 'closed' };
    const throttled = await this.d.throttle.hit(`ip:${ip}`);
    if (!throttled.allowed) return { kind: 'throttled', retryAfterSeconds: throttled.retryAfterSeconds };
    const errors = signUpErrors(input);
    if (errors.length > 0) return { kind: 'invalid', errors };
    const reason = text(input.reason).trim();
    try {
      const user = await this.d.users.create({
        username: text(input.username).trim(),
        email: text(input.email).trim(),
        passwordHash: await hashPassword(text(input.password)),
        roleId: RoleId.user,
        approved: this.d.mode === 'open',
        signUpReason: reason === '' ? null : reason,
        createdByAppId: input.appId ?? null,
        locale: typeof input.locale === 'string' && input.locale !== '' ? input.locale : null,
      });
      this.d.log.info({ user: user.userId, approved: user.approved, app: input.appId ?? null }, 'signed up');
      this.d.onCreated();
      return { kind: 'created', user };
    } catch (e) {
      if (!(e instanceof DuplicateError)) throw e;
      const field = e.field;
      return {
        kind: 'invalid',
        errors: [err(field, 'ERR_TAKEN', 'has already been taken', field === 'email' ? 'That e-mail address is already in use' : 'That username is taken')],
      };
    }
  }
}
