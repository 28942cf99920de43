// FEP-c390 identity statements: a VerifiableIdentityStatement links an Ed25519 did:key (subject) to an actor
// (alsoKnownAs) with an eddsa-jcs-2022 Data Integrity proof made by that key. Pure and synchronous: it runs inside
// the verification pool (actors/workers/verify.ts). Steps and rejection cases: ../shared/reference/identity.md §5.
import { checkProof, isJsonObject, proofHashData, type JsonObject } from './data-integrity.js';
import { parseEd25519DidKey } from './did-key.js';
import { verifyEd25519 } from './ed25519.js';
import { jcs } from './jcs.js';
import { refuse, type Refused } from './refusals.js';

export const MAX_STATEMENT_BYTES = 16_384;
export const MAX_STATEMENTS_PER_ACCOUNT = 10;
export const STATEMENT_TYPE = 'VerifiableIdentityStatement';
/** Real statements nest 2 or 3 levels (statement → proof → @context); extra properties get some room. */
export const MAX_DEPTH = 32;

export type StatementVerdict = { ok: true; subject: string; expiresAtMs: number | null } | Refused;

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Verifies one statement against the actor it must name. `input` is the statement's JSON exactly as received
 * (bytes from a request, or the text of one attachment of an actor document); its size is checked first.
 */
export function verifyIdentityStatement(input: Uint8Array | string, actorId: string, nowMs: number): StatementVerdict {
  const size = typeof input === 'string' ? Buffer.byteLength(input, 'utf8') : input.byteLength;
  if (size > MAX_STATEMENT_BYTES) return refuse('too_large');
  let text: string;
  let statement: unknown;
  try {
    text = typeof input === 'string' ? input : utf8.decode(input);
    statement = JSON.parse(text);
  } catch {
    return refuse('malformed_json');
  }
  const shape = scan(text);
  // A fixed bound, so that the verdict never depends on how much stack canonicalisation happens to have.
  if (shape.depth > MAX_DEPTH) return refuse('too_deep');
  // JSON.parse keeps the last of repeated names, other parsers the first: the stored text must mean one thing.
  if (shape.members !== keyCount(statement)) return refuse('duplicate_keys');
  return verifyParsedStatement(statement, actorId, nowMs);
}

/**
 * One pass over valid JSON text: its object members (each has exactly one ':' outside strings) and its deepest
 * nesting of objects and arrays.
 */
function scan(text: string): { members: number; depth: number } {
  let members = 0;
  let level = 0;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x3a) members++;
    else if (c === 0x7b || c === 0x5b) depth = Math.max(depth, ++level);
    else if (c === 0x7d || c === 0x5d) level--;
  }
  return { members, depth };
}

/** Object keys in a parsed value (after JSON.parse folded repeated names into one). Iterative: input may nest deeply. */
function keyCount(root: unknown): number {
  let n = 0;
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value !== 'object' || value === null) continue;
    if (Array.isArray(value)) {
      for (const v of value) stack.push(v);
    } else {
      for (const k of Object.keys(value)) {
        n++;
        stack.push((value as Record<string, unknown>)[k]);
      }
    }
  }
  return n;
}

export function verifyParsedStatement(statement: unknown, actorId: string, nowMs: number): StatementVerdict {
  if (!isJsonObject(statement)) return refuse('malformed_statement');
  if (statement['type'] !== STATEMENT_TYPE) return refuse('wrong_type');
  const subject = statement['subject'];
  if (typeof subject !== 'string' || typeof statement['alsoKnownAs'] !== 'string') return refuse('malformed_statement');
  if ('signature' in statement) return refuse('ld_signature_unsupported');
  if (statement['alsoKnownAs'] !== actorId) return refuse('actor_mismatch');
  const key = parseEd25519DidKey(subject);
  if (!key.ok) return key;
  const checked = checkProof(statement['proof'], { purpose: 'assertionMethod', nowMs });
  if (!checked.ok) return checked;
  const proof = statement['proof'] as JsonObject;
  // Stricter than vc-di-eddsa's prefix rule (as Mitra is): a proof @context must be the statement's whole @context,
  // so no context entry of a statement goes unsigned.
  if ('@context' in proof && jcs(proof['@context']) !== jcs(statement['@context'])) return refuse('proof_context_mismatch');
  const method = proof['verificationMethod'];
  if (method !== subject && method !== `${subject}#${key.multibase}`) return refuse('verification_method_mismatch');
  const hash = proofHashData(statement, proof);
  if (!Buffer.isBuffer(hash)) return hash;
  if (!verifyEd25519(key.publicKey, hash, checked.signature)) return refuse('signature_invalid');
  return { ok: true, subject, expiresAtMs: checked.expiresAtMs };
}
