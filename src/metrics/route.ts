// GET /metrics in Prometheus's text format, behind `Authorization: Bearer <METRICS_TOKEN>`; shared by the main
// server's route and the separate metrics listener (listener.ts).
import { createHash, timingSafeEqual } from 'node:crypto';
import { Errors } from '../errors.js';
import { PUBLIC, route, type Route } from '../http/types.js';
import type { Metrics } from './registry.js';

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

/**
 * Whether an Authorization header carries the token. Both sides are hashed first, so the comparison takes the same
 * time whatever the header's length and wherever it differs.
 */
export function tokenMatches(header: string | undefined, token: string): boolean {
  return timingSafeEqual(digest(header ?? ''), digest(`Bearer ${token}`));
}

export interface Scrape {
  readonly status: 200;
  readonly headers: { readonly 'Content-Type': string; readonly 'Cache-Control': string };
  readonly body: string;
}

/** The exposition; a token, when one is configured, is required. */
export async function scrape(metrics: Metrics, token: string | undefined, authorization: string | undefined): Promise<Scrape> {
  if (token !== undefined && !tokenMatches(authorization, token)) throw Errors.unauthorized('A valid metrics token is required');
  return { status: 200, headers: { 'Content-Type': metrics.contentType, 'Cache-Control': 'no-store' }, body: await metrics.text() };
}

/** The route on the main server: only when a token protects it (without one, metrics stay on their own listener). */
export function metricsRoutes(metrics: Metrics | null, token: string | undefined): Route[] {
  if (metrics === null || token === undefined) return [];
  return [route({ method: 'GET', path: '/metrics', auth: PUBLIC, handler: (req) => scrape(metrics, token, req.headers['authorization']) })];
}
