// Piscina task file: synchronous CPU work that must stay off the event loop (JSON parse, JCS, SHA-256, Ed25519).
// One function of one plain object, returning a small plain result; bad input is a result, never a throw across
// the pool boundary.
import { verifyEd25519 } from '../../src/identity/ed25519.js';
import { verifyIdentityStatement, type StatementVerdict } from '../../src/identity/identity-statement.js';
import { isSmallOrderKey } from '../../src/identity/weak-keys.js';

export interface Ed25519VerifyTask {
  readonly op: 'ed25519-verify';
  readonly publicKey: Uint8Array; // raw 32 bytes
  readonly message: Uint8Array;
  readonly signature: Uint8Array; // 64 bytes
}

export interface StatementItem {
  /** The statement's JSON as received (request bytes, or one attachment's text). */
  readonly input: Uint8Array | string;
  /** The actor the statement must name in alsoKnownAs. */
  readonly actorId: string;
  readonly nowMs: number;
}

/** A batch of identity statements: one pool round trip for many statements keeps the event loop's share small. */
export interface IdentityStatementsTask {
  readonly op: 'identity-statements';
  readonly items: readonly StatementItem[];
}

export type VerifyTask = Ed25519VerifyTask | IdentityStatementsTask;
export type VerifyResult = { ok: true } | { ok: false; reason: string };
export type StatementsResult = { ok: true; verdicts: StatementVerdict[] } | { ok: false; reason: string };

export default function run(task: VerifyTask): VerifyResult | StatementsResult {
  try {
    switch (task.op) {
      case 'ed25519-verify':
        return ed25519(task);
      case 'identity-statements':
        return { ok: true, verdicts: task.items.map(statement) };
      default:
        return { ok: false, reason: 'unknown_operation' };
    }
  } catch {
    return { ok: false, reason: 'verification_error' };
  }
}

function ed25519(task: Ed25519VerifyTask): VerifyResult {
  if (!(task.publicKey instanceof Uint8Array) || task.publicKey.length !== 32) return { ok: false, reason: 'invalid_public_key' };
  if (isSmallOrderKey(task.publicKey)) return { ok: false, reason: 'weak_public_key' };
  if (!(task.signature instanceof Uint8Array) || task.signature.length !== 64) return { ok: false, reason: 'invalid_signature_length' };
  if (!(task.message instanceof Uint8Array)) return { ok: false, reason: 'invalid_message' };
  return verifyEd25519(task.publicKey, task.message, task.signature) ? { ok: true } : { ok: false, reason: 'signature_mismatch' };
}

function statement(item: StatementItem): StatementVerdict {
  // Expiry is decided against nowMs: without a real clock reading, fail closed rather than let NaN compare false.
  if (typeof item?.nowMs !== 'number' || !Number.isFinite(item.nowMs)) return { ok: false, reason: 'verification_error' };
  try {
    return verifyIdentityStatement(item.input, item.actorId, item.nowMs);
  } catch {
    return { ok: false, reason: 'verification_error' };
  }
}
