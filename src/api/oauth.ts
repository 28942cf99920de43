// POST /oauth/token (authorization_code, client_credentials), POST /oauth/revoke and the RFC 8414 metadata.
// Clients authenticate with client_id + client_secret in the body only (client_secret_post); errors follow
// RFC 6749 §5.2 with Doorkeeper's wording, which Mastodon clients show to people.
import type { Config } from '../../config/schema.js';
import { OAuthError } from '../errors.js';
import type { Request } from '../http/request.js';
import { json, jsonText } from '../http/respond.js';
import { PUBLIC, type Route } from '../http/types.js';
import { verifierMatches } from '../oauth/authorization.js';
import { ALL_SCOPES, coversAll, splitScopes, unknownScope } from '../oauth/scopes.js';
import type { OAuthApp } from '../store/oauth-apps.js';
import type { OAuthDeps } from '../http/oauth-deps.js';

const E = {
  invalidClient: () =>
    new OAuthError(
      401,
      'invalid_client',
      'Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.',
    ),
  invalidGrant: () =>
    new OAuthError(
      400,
      'invalid_grant',
      'The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.',
    ),
  invalidScope: () => new OAuthError(400, 'invalid_scope', 'The requested scope is invalid, unknown, or malformed.'),
  unsupportedGrant: () => new OAuthError(400, 'unsupported_grant_type', 'The authorization grant type is not supported by the authorization server.'),
  missing: (name: string) => new OAuthError(400, 'invalid_request', `Missing required parameter: ${name}.`),
  notYourToken: () => new OAuthError(403, 'unauthorized_client', 'You are not authorized to revoke this token'),
};

const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' } as const;

function field(req: Request, name: string): string | undefined {
  const v = req.fields[name];
  return typeof v === 'string' && v.length > 0 && v.length <= 2000 ? v : undefined;
}

/** client_secret_post only: Basic credentials, or credentials missing from the body, are invalid_client. */
async function authenticateClient(req: Request, d: OAuthDeps): Promise<OAuthApp> {
  if (/^basic\b/i.test(req.headers['authorization'] ?? '')) throw E.invalidClient();
  const id = field(req, 'client_id');
  const secret = field(req, 'client_secret');
  if (!id || !secret) throw E.invalidClient();
  const app = await d.apps.authenticate(id, secret);
  if (!app) throw E.invalidClient();
  return app;
}

function metadataDocument(config: Config) {
  const base = config.baseUrl;
  return {
    issuer: `${base}/`,
    service_documentation: 'https://docs.joinmastodon.org/',
    authorization_endpoint: `${base}/oauth/authorize`,
    token_endpoint: `${base}/oauth/token`,
    app_registration_endpoint: `${base}/api/v1/apps`,
    revocation_endpoint: `${base}/oauth/revoke`,
    userinfo_endpoint: `${base}/oauth/userinfo`,
    scopes_supported: ALL_SCOPES,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'client_credentials'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['client_secret_post'],
    revocation_endpoint_auth_methods_supported: ['client_secret_post'],
  };
}

export function oauthRoutes(d: OAuthDeps): Route[] {
  const metadata = JSON.stringify(metadataDocument(d.config));

  const grantCode = async (req: Request, app: OAuthApp): Promise<{ userId: string; scopes: readonly string[] }> => {
    const code = field(req, 'code');
    if (!code) throw E.missing('code');
    const redirectUri = field(req, 'redirect_uri');
    if (!redirectUri) throw E.missing('redirect_uri');
    // Consumed first: a failed exchange burns the code, so a stolen one cannot be retried with guesses.
    const c = await d.codes.consume(code);
    if (!c || c.appId !== app.id || c.expiresAt.getTime() <= d.clock.now() || c.redirectUri !== redirectUri) throw E.invalidGrant();
    const verifier = req.fields['code_verifier'];
    if (c.codeChallenge !== null) {
      if (typeof verifier !== 'string' || !verifierMatches(verifier, c.codeChallenge)) throw E.invalidGrant();
    } else if (verifier !== undefined && verifier !== '') {
      throw E.invalidGrant(); // a verifier for an attempt that sent no challenge is not from this attempt
    }
    return { userId: c.userId, scopes: c.scopes };
  };

  const grantClientCredentials = (req: Request, app: OAuthApp): readonly string[] => {
    const raw = req.fields['scope'];
    if (raw !== undefined && typeof raw !== 'string') throw E.invalidScope();
    const scopes = splitScopes(raw ?? '');
    if (scopes.length === 0) return app.scopes; // omitted: everything the app registered
    if (unknownScope(scopes) !== undefined || !coversAll(app.scopes, scopes)) throw E.invalidScope();
    return scopes;
  };

  return [
    {
      method: 'POST',
      path: '/oauth/token',
      auth: PUBLIC,
      body: true,
      maxBodyBytes: d.config.limits.formBytes,
      handler: async (req) => {
        const grantType = field(req, 'grant_type');
        if (!grantType) throw E.missing('grant_type');
        if (grantType !== 'authorization_code' && grantType !== 'client_credentials') throw E.unsupportedGrant();
        const app = await authenticateClient(req, d);
        const grant = grantType === 'authorization_code' ? await grantCode(req, app) : { userId: null, scopes: grantClientCredentials(req, app) };
        const { token, createdAt } = await d.tokens.issue(app.id, grant.userId, grant.scopes);
        d.log.info({ app: app.id, user: grant.userId, grant: grantType }, 'token issued');
        return json(
          200,
          { access_token: token, token_type: 'Bearer', scope: grant.scopes.join(' '), created_at: Math.floor(createdAt.getTime() / 1000) },
          NO_STORE,
        );
      },
    },
    {
      method: 'POST',
      path: '/oauth/revoke',
      auth: PUBLIC,
      body: true,
      maxBodyBytes: d.config.limits.formBytes,
      handler: async (req) => {
        const app = await authenticateClient(req, d);
        const token = field(req, 'token');
        if (!token) throw E.missing('token');
        // Answers once every node has dropped the token: the client's very next request anywhere is refused.
        const outcome = await d.authEvents.publish(
          (nonce) => d.tokens.revokeForApp(token, app.id, nonce),
          (o) => o.kind === 'revoked' && o.notified,
        );
        if (outcome.kind === 'other_app') throw E.notYourToken();
        if (outcome.kind === 'revoked' && outcome.notified) d.log.info({ app: app.id }, 'token revoked');
        return json(200, {}, NO_STORE);
      },
    },
    { method: 'GET', path: '/.well-known/oauth-authorization-server', auth: PUBLIC, handler: () => jsonText(200, metadata) },
  ];
}
