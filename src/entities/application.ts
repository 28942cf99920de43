// Mastodon Application and CredentialApplication entities.
import type { OAuthApp } from '../store/oauth-apps.js';

/** vapidKey: the server's VAPID public key (Web Push), which Mastodon shows on every application. */
export function applicationEntity(a: OAuthApp, vapidKey: string) {
  return {
    id: a.id,
    name: a.name,
    website: a.website,
    scopes: a.scopes,
    // Deprecated but read by megalodon to build the authorize URL: the raw, newline-joined value.
    redirect_uri: a.redirectUris.join('\n'),
    redirect_uris: a.redirectUris,
    vapid_key: vapidKey,
  };
}

/** The registration response: the only time the client secret is ever shown. */
export function credentialApplicationEntity(a: OAuthApp, clientSecret: string, vapidKey: string) {
  return { ...applicationEntity(a, vapidKey), client_id: a.clientId, client_secret: clientSecret, client_secret_expires_at: 0 };
}
