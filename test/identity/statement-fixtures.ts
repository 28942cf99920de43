// Helpers for the identity-statement tests: fresh Ed25519 keys, freshly signed FEP-c390 statements, and typed access
// to the shared published vectors (../shared/reference/identity-vectors.json).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { signDataIntegrityProof, type JsonObject } from '../../src/identity/data-integrity.js';
import { ed25519DidKey } from '../../src/identity/did-key.js';
import { ed25519PublicKey } from '../../src/identity/ed25519.js';
import { decodeBase58btc } from '../../src/identity/multibase.js';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonRecord = { [key: string]: Json };

export const ACTOR = 'https://stoa.example/users/alice';
/** A fixed "now" for freshly signed statements: expiry checks never depend on the wall clock. */
export const NOW_MS = Date.parse('2025-06-01T12:00:00Z');
export const CREATED = '2025-05-31T08:00:00Z';

export interface TestKey {
  readonly seed: Uint8Array;
  readonly publicKey: Uint8Array;
  readonly did: string;
  /** The multibase part of the did:key (z6Mk…). */
  readonly multibase: string;
  /** The Mitra verification method form: did:key:<mb>#<mb>. */
  readonly fragmentMethod: string;
}

export function keyFromSeed(seed: Uint8Array): TestKey {
  const publicKey = ed25519PublicKey(seed);
  const did = ed25519DidKey(publicKey);
  const multibase = did.slice('did:key:'.length);
  return { seed, publicKey, did, multibase, fragmentMethod: `${did}#${multibase}` };
}

export function freshKey(): TestKey {
  return keyFromSeed(new Uint8Array(randomBytes(32)));
}

/** The seed inside an Ed25519 secretKeyMultibase: z + base58btc(0x80 0x26 ‖ 32-byte seed). */
export function seedFromSecretKeyMultibase(secretKeyMultibase: string): Uint8Array {
  const bytes = decodeBase58btc(secretKeyMultibase, 100);
  assert.ok(bytes, 'secretKeyMultibase decodes');
  assert.equal(bytes.length, 34);
  assert.deepEqual([bytes[0], bytes[1]], [0x80, 0x26]);
  return bytes.slice(2);
}

export interface SignOptions {
  readonly actorId?: string;
  /** Extra top-level properties (all covered by the signature). */
  readonly extra?: JsonRecord;
  /** Proof option overrides; a value of undefined removes that option. */
  readonly proof?: Record<string, Json | undefined>;
}

export function proofOptions(key: TestKey, overrides: Record<string, Json | undefined> = {}): JsonRecord {
  const options: Record<string, Json | undefined> = {
    type: 'DataIntegrityProof',
    cryptosuite: 'eddsa-jcs-2022',
    created: CREATED,
    verificationMethod: key.did,
    proofPurpose: 'assertionMethod',
    ...overrides,
  };
  const out: JsonRecord = {};
  for (const [k, v] of Object.entries(options)) if (v !== undefined) out[k] = v;
  return out;
}

/** A VerifiableIdentityStatement for `key`, signed with eddsa-jcs-2022 (or whatever the overrides say). */
export function signStatement(key: TestKey, options: SignOptions = {}): JsonRecord {
  const claim: JsonRecord = {
    type: 'VerifiableIdentityStatement',
    subject: key.did,
    alsoKnownAs: options.actorId ?? ACTOR,
    ...options.extra,
  };
  return signDataIntegrityProof(claim, proofOptions(key, options.proof), key.seed) as unknown as JsonRecord;
}

export function clone<T extends Json>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

export function proofOf(statement: JsonRecord): JsonRecord {
  const proof = statement['proof'];
  assert.ok(proof !== null && typeof proof === 'object' && !Array.isArray(proof), 'the statement has a proof object');
  return proof;
}

/** A copy of `statement` with `edit` applied to a copy of its proof. */
export function withProof(statement: JsonRecord, edit: (proof: JsonRecord) => void): JsonRecord {
  const copy = clone(statement);
  edit(proofOf(copy));
  return copy;
}

export function asJsonObject(value: JsonRecord): JsonObject {
  return value as unknown as JsonObject;
}

// ---- The shared vectors -------------------------------------------------------------------------------------

export interface KeyPairVector {
  readonly publicKeyMultibase: string;
  readonly secretKeyMultibase: string;
  readonly did: string;
  readonly verification_method_id: string;
}

export interface StatementVector {
  readonly id: string;
  readonly expected: string;
  readonly actor_id: string;
  readonly current_time?: string;
  readonly private_key?: string;
  readonly identity_claim?: JsonRecord;
  readonly identity_proof?: JsonRecord;
  readonly proofValue?: string;
  readonly cryptosuite?: string;
  readonly proof_config_created?: string;
  readonly derived_locally_not_from_source?: {
    readonly did_key_of_public_key_bytes: string;
    readonly statement_as_emitted_with_template_filled: JsonRecord;
    readonly hidden_context_hashed_by_producer: Json[];
  };
}

export interface GenericVector {
  readonly id: string;
  readonly expected: string;
  readonly current_time?: string;
  readonly signed_document?: JsonRecord;
  readonly unsigned_document?: JsonRecord;
  readonly proof_options?: JsonRecord;
  readonly proofValue?: string;
  readonly canonical_document?: string;
  readonly document_hash_hex?: string;
  readonly canonical_proof_options?: string;
  readonly proof_options_hash_hex?: string;
  readonly combined_hash_hex?: string;
  readonly signature_hex?: string;
}

export interface Vectors {
  readonly key_pairs: {
    readonly 'w3c-vc-di-eddsa-test-key': KeyPairVector;
    readonly 'pzingg-integrity-proofs-test-key': { readonly public_key_bytes: number[]; readonly private_key_bytes: number[] };
  };
  readonly identity_statement_vectors: StatementVector[];
  readonly generic_eddsa_jcs_2022_vectors: GenericVector[];
  readonly did_key_vectors: {
    readonly ed25519_valid: { readonly did: string; readonly verification_method_id?: string }[];
    readonly non_ed25519_reject: { readonly did?: string; readonly multibase_only?: string; readonly key_type: string }[];
  };
}

/** dist/test/identity/ → /work/shared (CI places the shared folder beside the repository). */
export const VECTORS_URL = new URL('../../../../shared/reference/identity-vectors.json', import.meta.url);

let vectors: Vectors | undefined;

export function loadVectors(): Vectors {
  vectors ??= JSON.parse(readFileSync(VECTORS_URL, 'utf8')) as Vectors;
  return vectors;
}
