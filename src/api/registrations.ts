// Signing up through an app (Mastodon's Api::V1::AccountsController#create and AppSignUpService) and the e-mail
// confirmation routes apps call after it (Api::V1::Emails::ConfirmationsController). The rules, the throttle and the
// account are the sign-up page's (services/registration-service.ts); this answers as Mastodon does: a Token for the
// new member with the app's scopes, 403 when registrations are closed, 422 with ValidationErrorFormatter's details.
//
// Stoa sends no e-mail, so every member's address counts as confirmed from the start (the page asks none either):
// check_confirmation answers true, and a request to resend the confirmation is answered as Mastodon answers it for a
// confirmed account, 403, rather than pretending to send a message that will never arrive.
import { ApiError, type ErrorDetails, Errors } from '../errors.js';
import { json } from '../http/respond.js';
import { route, type Route } from '../http/types.js';
import type { FieldError, RegistrationService } from '../services/registration-service.js';
import type { AppStore } from '../store/oauth-apps.js';
import type { TokenStore } from '../store/oauth-tokens.js';

export interface RegistrationApiDeps {
  readonly registration: RegistrationService;
  readonly apps: AppStore;
  readonly tokens: TokenStore;
}

const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' } as const;
const HUMAN: Readonly<Record<string, string>> = { password_confirmation: 'Password confirmation' };
const human = (field: string) => HUMAN[field] ?? field.charAt(0).toUpperCase() + field.slice(1);

/** ValidationErrorFormatter's answer: "Validation failed: " and each full message, and per field its codes. */
function invalid(errors: readonly FieldError[]): ApiError {
  const details: Record<string, { error: string; description: string }[]> = {};
  for (const e of errors) (details[e.field] ??= []).push({ error: e.code, description: e.description });
  return Errors.invalidRecord(errors.map((e) => `${human(e.field)} ${e.description}`).join(', '), details as ErrorDetails);
}

export function registrationRoutes(d: RegistrationApiDeps): Route[] {
  return [
    route({
      method: 'POST',
      path: '/api/v1/accounts',
      auth: { scopes: ['write:accounts'] },
      body: true,
      handler: async (req, who) => {
        const f = req.fields;
        const outcome = await d.registration.signUp(
          {
            username: f['username'],
            email: f['email'],
            password: f['password'],
            // Absent is not accepted: Mastodon's `agreement` must be given as true.
            agreement: f['agreement'] ?? false,
            reason: f['reason'],
            locale: f['locale'],
            reasonRequired: d.registration.mode === 'approval',
            appId: who.record.appId,
          },
          req.ip,
        );
        if (outcome.kind === 'closed') throw Errors.forbidden();
        if (outcome.kind === 'throttled') throw Errors.tooManyRequests(outcome.retryAfterSeconds);
        if (outcome.kind === 'invalid') throw invalid(outcome.errors);
        // AppSignUpService's token: for the new member, with every scope the app registered.
        const app = await d.apps.byId(who.record.appId);
        const scopes = app?.scopes ?? who.record.scopes;
        const { token, createdAt } = await d.tokens.issue(who.record.appId, outcome.user.userId, scopes);
        return json(200, { access_token: token, token_type: 'Bearer', scope: scopes.join(' '), created_at: Math.floor(createdAt.getTime() / 1000) }, NO_STORE);
      },
    }),
    route({
      method: 'POST',
      path: '/api/v1/emails/confirmations',
      auth: { scopes: ['write:accounts'] },
      body: true,
      handler: (_req, who) => {
        const user = who.record.user;
        if (!user || user.createdByAppId !== who.record.appId) {
          throw Errors.forbidden('This method is only available to the application the user originally signed-up with');
        }
        throw Errors.forbidden('This method is only available while the e-mail is awaiting confirmation');
      },
    }),
    route({
      method: 'GET',
      path: '/api/v1/emails/check_confirmation',
      auth: { scopes: ['read:accounts'] },
      handler: (_req, who) => {
        if (!who.record.user) throw new ApiError(401, 'This method requires an authenticated user');
        return json(200, true);
      },
    }),
  ];
}
