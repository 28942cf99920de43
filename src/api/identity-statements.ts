// Identity statements (FEP-c390): a member publishes statements linking their actor to keys they hold, deletes
// them, and anyone reads an account's live statements. Statements are verified in the pool (never on the event
// loop), stored as the exact bytes received, and announced to connected servers with an actor Update.
//
// Reads are public, as Mastodon's account endpoints are: the same statements are public in the actor document. A
// token, if sent, must be valid and carry read or read:accounts.
import { z } from 'zod';
import type { VerifyPool } from '../../actors/verify-pool.js';
import type { Clock } from '../clock.js';
import { Errors } from '../errors.js';
import type { FollowService } from '../services/follow-service.js';
import type { LocalUris } from '../urls/local-uris.js';
import { jsonText } from '../http/respond.js';
import { route, type Reply, type Route } from '../http/types.js';
import { MAX_STATEMENT_BYTES, MAX_STATEMENTS_PER_ACCOUNT } from '../identity/identity-statement.js';
import { REFUSALS } from '../identity/refusals.js';
import type { AccountStore } from '../store/accounts.js';
import type { IdentityStatementStore } from '../store/identity-statements.js';
import { memberAccount } from './callers.js';

/** The transport limit (413); anything between MAX_STATEMENT_BYTES and this is read and refused with 422. */
const MAX_BODY_BYTES = 64 * 1024;

const DeleteBody = z.object({
  subject: z
    .string()
    .max(2048)
    .regex(/^did:key:/, 'subject must be a did:key identifier'),
});

export interface IdentityStatementDeps {
  readonly clock: Clock;
  readonly pool: VerifyPool;
  readonly statements: IdentityStatementStore;
  readonly accounts: AccountStore;
  readonly uris: LocalUris;
  readonly followService: FollowService;
}

function list(documents: readonly string[]): Reply {
  return jsonText(200, `[${documents.join(',')}]`);
}

function parseJson(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    return undefined;
  }
}

function invalid(description: string) {
  return Errors.unprocessable('Invalid identity statement', description);
}

export function identityStatementRoutes(d: IdentityStatementDeps): Route[] {
  const now = () => new Date(d.clock.now());

  return [
    route({
      method: 'POST',
      path: '/api/v1/accounts/identity_statements',
      auth: { scopes: ['write:accounts'], member: true },
      body: 'raw',
      maxBodyBytes: MAX_BODY_BYTES,
      handler: async (req, who) => {
        const me = await memberAccount(d.accounts, who);
        const raw = req.rawBody!;
        if (raw.byteLength > MAX_STATEMENT_BYTES) throw invalid(REFUSALS.too_large);
        const verdict = await d.pool.verifyStatement({ input: raw, actorId: d.uris.actor(me.username), nowMs: d.clock.now() });
        if (!verdict.ok) throw invalid(REFUSALS[verdict.reason]);
        const outcome = await d.statements.publish(
          me.id,
          { subject: verdict.subject, document: raw.toString('utf8'), expiresAt: verdict.expiresAtMs === null ? null : new Date(verdict.expiresAtMs) },
          MAX_STATEMENTS_PER_ACCOUNT,
          now(),
        );
        if (!outcome.ok) {
          if (outcome.reason === 'no_account') throw Errors.notFound();
          throw Errors.unprocessable(
            'Too many identity statements',
            `An account keeps at most ${MAX_STATEMENTS_PER_ACCOUNT} identity statements; delete one before adding another`,
          );
        }
        // Posting the same bytes again changes nothing and announces nothing (no Update fan-out on retries).
        if (outcome.changed) await d.followService.announceProfile(me);
        return list(outcome.statements);
      },
    }),
    route({
      method: 'DELETE',
      path: '/api/v1/accounts/identity_statements',
      auth: { scopes: ['write:accounts'], member: true },
      // Read raw so that unparsable JSON is the 422 the endpoint promises, not the generic 400.
      body: 'raw',
      maxBodyBytes: 4096,
      handler: async (req, who) => {
        const me = await memberAccount(d.accounts, who);
        const parsed = DeleteBody.safeParse(parseJson(req.rawBody!));
        if (!parsed.success) {
          const issue = parsed.error.issues[0]!;
          throw Errors.validation(issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : 'the body must be a JSON object with a subject');
        }
        if (await d.statements.remove(me.id, parsed.data.subject)) await d.followService.announceProfile(me);
        return list(await d.statements.live(me.id, now()));
      },
    }),
    route({
      method: 'GET',
      path: '/api/v1/accounts/:id/identity_statements',
      auth: { scopes: ['read:accounts'], optional: true },
      handler: async (req) => {
        const a = await d.accounts.byId(req.params['id']!);
        if (!a || a.deletedAt || (a.domain === null && !a.hasUser)) throw Errors.notFound();
        return list(await d.statements.live(a.id, now()));
      },
    }),
  ];
}
