// The benchmark scenarios, one entry each. A scenario names the request wrk sends to Stoa (preparing whatever it
// needs first: users, tokens, signed documents) and the request sent to the bare uWS server as its floor.
import { seedHomeTimeline, seedUserToken } from './seed.js';
import type { Target } from './wrk.js';

export interface ScenarioContext {
  /** Stoa's origin, e.g. http://127.0.0.1:41234. */
  readonly stoaUrl: string;
  /** The database Stoa runs on, for scenarios that must seed data (accounts, OAuth tokens…). */
  readonly databaseUrl: string;
}

export interface Scenario {
  readonly name: string;
  /** The floor: what the bare server (bench/bare-uws.ts) is asked in the same run. */
  readonly bare: Target;
  readonly stoa: (ctx: ScenarioContext) => Target | Promise<Target>;
  /** The status a correct response has; checked once before load so that an error path is never benchmarked. */
  readonly expectStatus?: number;
}

const BARE: Target = { path: '/bare' };

export const scenarios: readonly Scenario[] = [
  // The hottest unauthenticated read: every client fetches it at start-up; served from an in-memory cache.
  { name: 'instance', bare: BARE, stoa: () => ({ path: '/api/v1/instance' }) },
  // The hottest authenticated read: bearer token (SHA-256 + cache lookup, scope check) and the member's cached entity.
  {
    name: 'verify_credentials',
    bare: BARE,
    stoa: async (ctx) => ({ path: '/api/v1/accounts/verify_credentials', headers: { Authorization: `Bearer ${await seedUserToken(ctx.databaseUrl)}` } }),
  },
  // The home timeline of a member following 5,000 accounts (100,000 of their statuses among 100,000 others): the
  // query, visibility and block/mute filters, and rendering 20 statuses with their authors.
  {
    name: 'home_timeline',
    bare: BARE,
    stoa: async (ctx) => ({ path: '/api/v1/timelines/home', headers: { Authorization: `Bearer ${await seedHomeTimeline(ctx.databaseUrl)}` } }),
  },
];
