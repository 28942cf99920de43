// Signing FEP-c390 identity statements in tests: a fresh Ed25519 key, and a statement for an actor signed with it
// (eddsa-jcs-2022 by default), in the shapes real producers use (bare DID or Mitra's #multibase fragment).
import { randomBytes } from 'node:crypto';
import { signDataIntegrityProof, type JsonObject } from '../../src/identity/data-integrity.js';
import { ed25519DidKey } from '../../src/identity/did-key.js';
import { ed25519PublicKey } from '../../src/identity/ed25519.js';

export interface IdentityKey {
  readonly seed: Uint8Array;
  readonly publicKey: Uint8Array;
  /** did:key:z6Mk… */
  readonly did: string;
}

export function newIdentityKey(): IdentityKey {
  const seed = new Uint8Array(randomBytes(32));
  const publicKey = ed25519PublicKey(seed);
  return { seed, publicKey, did: ed25519DidKey(publicKey) };
}

export interface StatementOptions {
  readonly cryptosuite?: 'eddsa-jcs-2022' | 'jcs-eddsa-2022';
  /** verificationMethod as did#multibase (Mitra) instead of the bare DID (the FEP example). */
  readonly fragment?: boolean;
  readonly created?: string;
  readonly expires?: string;
  /** Extra top-level properties (covered by the signature). */
  readonly extra?: JsonObject;
}

export function signStatement(key: IdentityKey, actorId: string, o: StatementOptions = {}): JsonObject {
  const proof: JsonObject = {
    type: 'DataIntegrityProof',
    cryptosuite: o.cryptosuite ?? 'eddsa-jcs-2022',
    created: o.created ?? new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    verificationMethod: o.fragment ? `${key.did}#${key.did.slice('did:key:'.length)}` : key.did,
    proofPurpose: 'assertionMethod',
  };
  if (o.expires !== undefined) proof['expires'] = o.expires;
  return signDataIntegrityProof({ type: 'VerifiableIdentityStatement', subject: key.did, alsoKnownAs: actorId, ...o.extra }, proof, key.seed);
}
