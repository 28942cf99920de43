// Client-API calls for tests that talk to several servers: JSON in, JSON out, with a member's bearer token, and
// the environment a federating test server needs on loopback.
import { registerApp, signIn, userToken } from './oauth.js';
import type { TestServer } from './server.js';

/** Servers that federate with each other over loopback, retrying deliveries quickly. */
export const FED_ENV = { BASE_URL: 'http://127.0.0.1:{port}', FEDERATION_ALLOW_PRIVATE: 'loopback', DELIVERY_RETRY_BASE_MS: '200' };

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- API JSON, asserted field by field in the tests
export type Json = any;

export async function api(base: string, token: string | undefined, method: string, path: string, body?: unknown): Promise<{ status: number; body: Json; text: string }> {
  const res = await fetch(base + path, {
    method,
    headers: { ...(token ? { Authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, text };
}

/** A token (read write follow, unless other scopes are named) for the server's first admin, through the authorization-code flow. */
export async function adminToken(s: TestServer, scopes = 'read write follow'): Promise<string> {
  const jar = await signIn(s.url, 'admin', s.app.firstAdmin!.password);
  return userToken(s.url, jar, await registerApp(s.url, { scopes }), scopes);
}
