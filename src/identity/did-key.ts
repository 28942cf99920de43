// did:key for Ed25519 (W3C did:key method; CID Multikey): "did:key:" + multibase base58btc of the multicodec varint
// 0xed (bytes ed 01) followed by the 32-byte public key. Key types are told apart by the decoded multicodec, never
// by the text (an X25519 key also starts "z6").
import { varint } from 'multiformats';
import { decodeBase58btc, encodeBase58btc } from './multibase.js';
import { isSmallOrderKey } from './weak-keys.js';

const ED25519_PUB = 0xed;
const DID_KEY = /^did:key:(z[1-9A-HJ-NP-Za-km-z]+)$/;
/** Longer than any real key's multibase (RSA-4096 is ~750 characters); caps the quadratic base58 decode. */
const MAX_MULTIBASE_CHARS = 1024;

export type DidKeyRefusal = 'subject_not_did_key' | 'subject_invalid_encoding' | 'subject_not_ed25519' | 'subject_invalid_key_length' | 'weak_key';

export type DidKeyResult = { ok: true; publicKey: Uint8Array; multibase: string } | { ok: false; reason: DidKeyRefusal };

export function parseEd25519DidKey(did: string): DidKeyResult {
  const m = DID_KEY.exec(did);
  if (!m) return { ok: false, reason: 'subject_not_did_key' };
  const multibase = m[1]!;
  const bytes = decodeBase58btc(multibase, MAX_MULTIBASE_CHARS);
  if (!bytes || bytes.length < 2) return { ok: false, reason: 'subject_invalid_encoding' };
  let code: number;
  let prefix: number;
  try {
    [code, prefix] = varint.decode(bytes);
  } catch {
    return { ok: false, reason: 'subject_invalid_encoding' };
  }
  if (code !== ED25519_PUB || prefix !== 2) return { ok: false, reason: 'subject_not_ed25519' };
  if (bytes.length !== 34) return { ok: false, reason: 'subject_invalid_key_length' };
  const publicKey = bytes.subarray(2);
  if (isSmallOrderKey(publicKey)) return { ok: false, reason: 'weak_key' };
  return { ok: true, publicKey, multibase };
}

export function ed25519DidKey(publicKey: Uint8Array): string {
  const bytes = new Uint8Array(34);
  bytes[0] = 0xed;
  bytes[1] = 0x01;
  bytes.set(publicKey, 2);
  return `did:key:${encodeBase58btc(bytes)}`;
}
