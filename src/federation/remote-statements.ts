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
import { elementTexts, type JsonSource } from './json-source.js';

export interface RemoteStatementsDeps {
  readonly pool: VerifyPool;
  readonly statements: IdentityStatementStore;
  readonly clock: Clock;
  readonly log: Logger;
}

export class RemoteStatements {
  constructor(private readonly d: RemoteStatementsDeps) {}

  /** source: where the attachment is in the document as received, so statements are kept in their original text. */
  async sync(account: Account, attachment: readonly unknown[], source?: JsonSource): Promise<void> {
    const actorId = account.uri;
    if (!actorId) return;
    try {
      // Bounded work per actor: only the first few statements are looked at (the same limit members have).
      const texts = statementTexts(attachment, source).slice(0, MAX_STATEMENTS_PER_ACCOUNT);
      const nowMs = this.d.clock.now();
      const verdicts = await Promise.all(
        texts.map(
          (input): Promise<StatementVerdict> =>
            input === null ? Promise.resolve(refuse('malformed_statement')) : this.d.pool.verifyStatement({ input, actorId, nowMs }),
        ),
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

/**
 * The statements' texts: as the peer wrote them when the source text is at hand (FEP-c390: clients are shown
 * statements "in their original form"), else re-serialised from the parsed document.
 */
function statementTexts(attachment: readonly unknown[], source: JsonSource | undefined): (string | null)[] {
  if (!attachment.some(isStatement)) return [];
  const original = source && elementTexts(source.text, source.path);
  if (original && original.length >= attachment.length) {
    // The parsed attachment is the first items of the same array, in order. Whatever text is taken here is then
    // verified against the actor like any other, so a wrong span could only be dropped, never trusted.
    return original.slice(0, attachment.length).filter((_, i) => isStatement(attachment[i]));
  }
  return attachment.filter(isStatement).map(textOf);
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
