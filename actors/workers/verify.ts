// Piscina task file: synchronous CPU work that must stay off the event loop. One function of one plain object,
// returning a small plain result; bad input is a result, never a throw across the pool boundary.
import { createPublicKey, verify, type KeyObject } from 'node:crypto';

export interface Ed25519VerifyTask {
  readonly op: 'ed25519-verify';
  readonly publicKey: Uint8Array; // raw 32 bytes
  readonly message: Uint8Array;
  readonly signature: Uint8Array; // 64 bytes
}

export type VerifyTask = Ed25519VerifyTask;
export type VerifyResult = { ok: true } | { ok: false; reason: string };

// DER SubjectPublicKeyInfo header for an Ed25519 key (RFC 8410); the raw key follows.
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

// Parsed keys are reused: the same few keys (an actor's, a statement's) are verified again and again.
const keyCache = new Map<string, KeyObject>();
const KEY_CACHE_MAX = 1024;

function keyFor(raw: Uint8Array): KeyObject {
  const id = Buffer.from(raw).toString('base64');
  let key = keyCache.get(id);
  if (!key) {
    key = createPublicKey({ key: Buffer.concat([SPKI_PREFIX, raw]), format: 'der', type: 'spki' });
    if (keyCache.size >= KEY_CACHE_MAX) keyCache.delete(keyCache.keys().next().value!);
    keyCache.set(id, key);
  }
  return key;
}

export default function run(task: VerifyTask): VerifyResult {
  try {
    switch (task.op) {
      case 'ed25519-verify': {
        if (!(task.publicKey instanceof Uint8Array) || task.publicKey.length !== 32) return { ok: false, reason: 'invalid_public_key' };
        if (!(task.signature instanceof Uint8Array) || task.signature.length !== 64) return { ok: false, reason: 'invalid_signature_length' };
        if (!(task.message instanceof Uint8Array)) return { ok: false, reason: 'invalid_message' };
        const good = verify(null, task.message, keyFor(task.publicKey), task.signature);
        return good ? { ok: true } : { ok: false, reason: 'signature_mismatch' };
      }
      default:
        return { ok: false, reason: 'unknown_operation' };
    }
  } catch {
    return { ok: false, reason: 'verification_error' };
  }
}
