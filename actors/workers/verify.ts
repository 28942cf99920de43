// Piscina task file: synchronous CPU work that must stay off the event loop. One function of one plain object,
// returning a small plain result; bad input is a result, never a throw across the pool boundary.
import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';

export interface Ed25519VerifyTask {
  readonly op: 'ed25519-verify';
  readonly publicKey: Uint8Array; // raw 32 bytes
  readonly message: Uint8Array;
  readonly signature: Uint8Array; // 64 bytes
}

/** HTTP signatures (draft-cavage rsa-sha256 / hs2019 with an RSA key): the signing string against a PEM key. */
export interface RsaVerifyTask {
  readonly op: 'rsa-sha256-verify';
  readonly publicKeyPem: string;
  readonly message: string;
  readonly signature: Uint8Array;
}

export interface RsaSignTask {
  readonly op: 'rsa-sha256-sign';
  readonly privateKeyPem: string;
  readonly message: string;
}

export type VerifyTask = Ed25519VerifyTask | RsaVerifyTask | RsaSignTask;
/** `signature` (base64) is set by signing operations. */
export type VerifyResult = { ok: true; signature?: string } | { ok: false; reason: string };

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

// PEM parsing costs more than an RSA verification; actors' keys repeat, so parsed keys are kept (bounded).
const pemCache = new Map<string, KeyObject>();

function pemKey(pem: string, kind: 'public' | 'private'): KeyObject {
  let key = pemCache.get(pem);
  if (!key) {
    key = kind === 'public' ? createPublicKey(pem) : createPrivateKey(pem);
    if (pemCache.size >= KEY_CACHE_MAX) pemCache.delete(pemCache.keys().next().value!);
    pemCache.set(pem, key);
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
      case 'rsa-sha256-verify': {
        if (typeof task.publicKeyPem !== 'string' || typeof task.message !== 'string') return { ok: false, reason: 'invalid_input' };
        const key = pemKey(task.publicKeyPem, 'public');
        if (key.asymmetricKeyType !== 'rsa') return { ok: false, reason: 'unsupported_key_type' };
        const good = verify('sha256', Buffer.from(task.message), key, task.signature);
        return good ? { ok: true } : { ok: false, reason: 'signature_mismatch' };
      }
      case 'rsa-sha256-sign': {
        const key = pemKey(task.privateKeyPem, 'private');
        return { ok: true, signature: sign('sha256', Buffer.from(task.message), key).toString('base64') };
      }
      default:
        return { ok: false, reason: 'unknown_operation' };
    }
  } catch {
    return { ok: false, reason: 'verification_error' };
  }
}
