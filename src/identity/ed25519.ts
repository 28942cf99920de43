// Ed25519 (RFC 8032, pure) with node:crypto: OpenSSL verifies ~10x faster than @noble/ed25519 here (bench/identity.ts).
// OpenSSL does not refuse small-order keys; callers must check them first (weak-keys.ts).
import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';

// DER wrappers (RFC 8410): SubjectPublicKeyInfo and PKCS#8 headers for a raw 32-byte Ed25519 key or seed.
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

// Parsed keys are reused: the same keys (a member's statement, a peer's) are verified again and again.
const keyCache = new Map<string, KeyObject>();
const KEY_CACHE_MAX = 1024;

function publicKeyObject(raw: Uint8Array): KeyObject {
  const id = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('latin1');
  let key = keyCache.get(id);
  if (!key) {
    key = createPublicKey({ key: Buffer.concat([SPKI_PREFIX, raw]), format: 'der', type: 'spki' });
    if (keyCache.size >= KEY_CACHE_MAX) keyCache.delete(keyCache.keys().next().value!);
    keyCache.set(id, key);
  }
  return key;
}

/** False for a bad signature; throws only for a key OpenSSL cannot import. */
export function verifyEd25519(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  return verify(null, message, publicKeyObject(publicKey), signature);
}

export function signEd25519(seed: Uint8Array, message: Uint8Array): Uint8Array {
  return sign(null, message, createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' }));
}

export function ed25519PublicKey(seed: Uint8Array): Uint8Array {
  const spki = createPublicKey(createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' })).export({
    format: 'der',
    type: 'spki',
  });
  return new Uint8Array(spki.subarray(SPKI_PREFIX.length));
}
