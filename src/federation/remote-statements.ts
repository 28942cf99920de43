// A remote actor's identity statements (FEP-c390): whenever its document is fetched or arrives in an Update, the
// VerifiableIdentityStatement attachments are verified in the pool against that actor's id and the valid ones
// replace what was stored. An invalid statement is dropped and logged; it never rejects the actor, and a failure
// here (pool busy, database) leaves the stored statements as they were.
import type { VerifyPool } from '../../actors/verify-pool.js';
import type { Clock } from '../clock.js';
import { MAX_STATEMENTS_PER_ACCOUNT, STATEMENT_TYPE, type StatementVerdict } from '../identity/identity-statement.js';
import { refuse } from '../identity/refusals.js';
import type { Logger } from '../log.js';
import type { Account } from '../store/accounts.js';
import type { IdentityStatementStore, StoredStatement } from '../store/identity-statements.js';

export interface RemoteStatementsDeps {
  readonly pool: VerifyPool;
  readonly statements: IdentityStatementStore;
  readonly clock: Clock;
  readonly log: Logger;
}

export class RemoteStatements {
  constructor(private readonly d: RemoteStatementsDeps) {}

  async sync(account: Account, attachment: readonly unknown[]): Promise<void> {
    const actorId = account.uri;
    if (!actorId) return;
    try {
      // Bounded work per actor: only the first few statements are looked at (the same limit members have).
      const texts = attachment.filter(isStatement).slice(0, MAX_STATEMENTS_PER_ACCOUNT).map(textOf);
      const nowMs = this.d.clock.now();
      const verdicts = await Promise.all(
        texts.map((input): Promise<StatementVerdict> => (input === null ? Promise.resolve(refuse('malformed_statement')) : this.d.pool.verifyStatement({ input, actorId, nowMs }))),
      );
      const kept = new Map<string, StoredStatement>();
      verdicts.forEach((v, i) => {
        if (!v.ok) {
          this.d.log.info({ actor: actorId, reason: v.reason }, 'remote identity statement dropped');
        } else if (!kept.has(v.subject)) {
          kept.set(v.subject, { subject: v.subject, document: texts[i]!, expiresAt: v.expiresAtMs === null ? null : new Date(v.expiresAtMs) });
        }
      });
      await this.d.statements.replaceAll(account.id, [...kept.values()]);
    } catch (err) {
      this.d.log.warn({ err, actor: actorId }, 'remote identity statements not updated');
    }
  }
}

/** The statement as JSON text; null for one that cannot be serialised (nested past the stack): only it is dropped. */
function textOf(item: unknown): string | null {
  try {
    return JSON.stringify(item);
  } catch {
    return null;
  }
}

function isStatement(item: unknown): boolean {
  return typeof item === 'object' && item !== null && (item as { type?: unknown }).type === STATEMENT_TYPE;
}
