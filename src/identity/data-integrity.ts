// Data Integrity proofs with the eddsa-jcs-2022 cryptosuite (W3C vc-di-eddsa §3.3, DI §4.4 Verify Proof), and its
// legacy name jcs-eddsa-2022 (the same algorithm: only the name inside the hashed proof config differs).
// hashData = SHA-256(JCS(proof minus proofValue)) ‖ SHA-256(JCS(document minus proof)); Ed25519 signs those 64 bytes.
// Everything is hashed exactly as received: a date re-formatted or a suite name normalised breaks the signature.
import { createHash } from 'node:crypto';
import { parseDateTimeStamp } from './date-time.js';
import { verifyEd25519, signEd25519 } from './ed25519.js';
import { jcs } from './jcs.js';
import { decodeBase58btc, encodeBase58btc } from './multibase.js';
import { refuse, type Refused } from './refusals.js';

export const CRYPTOSUITES: ReadonlySet<string> = new Set(['eddsa-jcs-2022', 'jcs-eddsa-2022']);
/** 64 bytes are 87 or 88 base58 characters; a little slack, and the quadratic decode stays bounded. */
const MAX_PROOF_VALUE_CHARS = 100;

export type JsonObject = Record<string, unknown>;

export interface ProofPolicy {
  /** The proof purpose the verifier requires (DI §4.4 step: expected proof purpose). */
  readonly purpose: string;
  readonly nowMs: number;
}

export type ProofChecked = { ok: true; signature: Uint8Array; expiresAtMs: number | null } | Refused;

export function isJsonObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Checks the proof's own fields; the signature is checked by verifyProofSignature. */
export function checkProof(proof: unknown, policy: ProofPolicy): ProofChecked {
  if (Array.isArray(proof)) return refuse('proof_set_unsupported');
  if (!isJsonObject(proof)) return refuse('proof_missing');
  if (proof['type'] !== 'DataIntegrityProof') return refuse('proof_type_unsupported');
  if (typeof proof['cryptosuite'] !== 'string' || !CRYPTOSUITES.has(proof['cryptosuite'])) return refuse('cryptosuite_unsupported');
  if (proof['proofPurpose'] !== policy.purpose) return refuse('proof_purpose_mismatch');
  if (typeof proof['verificationMethod'] !== 'string') return refuse('verification_method_mismatch');
  const value = proof['proofValue'];
  const signature = typeof value === 'string' ? decodeBase58btc(value, MAX_PROOF_VALUE_CHARS) : null;
  if (signature?.length !== 64) return refuse('proof_value_invalid');
  if ('created' in proof && (typeof proof['created'] !== 'string' || parseDateTimeStamp(proof['created']) === null)) return refuse('created_invalid');
  let expiresAtMs: number | null = null;
  if ('expires' in proof) {
    expiresAtMs = typeof proof['expires'] === 'string' ? parseDateTimeStamp(proof['expires']) : null;
    if (expiresAtMs === null) return refuse('expires_invalid');
    if (expiresAtMs <= policy.nowMs) return refuse('expired');
  }
  return { ok: true, signature, expiresAtMs };
}

/**
 * The 64 bytes the signature covers, or a refusal. A proof @context must be the start of the document's @context
 * (vc-di-eddsa verify step 4); the document is then hashed with the proof's @context.
 */
export function proofHashData(secured: JsonObject, proof: JsonObject): Buffer | Refused {
  const document: JsonObject = { ...secured };
  delete document['proof'];
  const options: JsonObject = { ...proof };
  delete options['proofValue'];
  if ('@context' in options) {
    if (!contextStartsWith(secured['@context'], options['@context'])) return refuse('proof_context_mismatch');
    document['@context'] = options['@context'];
  }
  const config = jcs(options);
  const data = config === null ? null : jcs(document);
  if (config === null || data === null) return refuse('jcs_failed');
  return Buffer.concat([sha256(config), sha256(data)]);
}

/** DI §4.4 Verify Proof for one proof (not a proof set) with a key the caller already trusts for it. */
export function verifyDataIntegrityProof(secured: JsonObject, publicKey: Uint8Array, policy: ProofPolicy): ProofChecked {
  const checked = checkProof(secured['proof'], policy);
  if (!checked.ok) return checked;
  const hash = proofHashData(secured, secured['proof'] as JsonObject);
  if (!Buffer.isBuffer(hash)) return hash;
  return verifyEd25519(publicKey, hash, checked.signature) ? checked : refuse('signature_invalid');
}

/** Adds an eddsa-jcs-2022 proof (vc-di-eddsa "Add Proof"); `options` is the proof without proofValue. */
export function signDataIntegrityProof<T extends JsonObject>(unsecured: T, options: JsonObject, seed: Uint8Array): T & { proof: JsonObject } {
  const hash = proofHashData(unsecured, options);
  if (!Buffer.isBuffer(hash)) throw new Error(`cannot sign: ${hash.reason}`);
  return { ...unsecured, proof: { ...options, proofValue: encodeBase58btc(signEd25519(seed, hash)) } };
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

function contextStartsWith(documentContext: unknown, proofContext: unknown): boolean {
  if (documentContext === undefined) return false;
  const doc = Array.isArray(documentContext) ? documentContext : [documentContext];
  const prefix = Array.isArray(proofContext) ? proofContext : [proofContext];
  if (prefix.length > doc.length) return false;
  for (let i = 0; i < prefix.length; i++) {
    const a = jcs(doc[i]);
    if (a === null || a !== jcs(prefix[i])) return false;
  }
  return true;
}
