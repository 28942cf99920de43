// Multibase base58btc ("z…") decoding, strict: only the alphabet, and only the one canonical spelling of the bytes
// (decode then re-encode must give the same text). Lengths are capped before decoding: base58 is quadratic.
import { base58btc } from 'multiformats/bases/base58';

const BASE58BTC = /^z[1-9A-HJ-NP-Za-km-z]+$/;

/** The decoded bytes, or null when the text is not a canonical base58btc multibase value of at most maxChars. */
export function decodeBase58btc(text: string, maxChars: number): Uint8Array | null {
  if (text.length > maxChars || !BASE58BTC.test(text)) return null;
  let bytes: Uint8Array;
  try {
    bytes = base58btc.decode(text);
  } catch {
    return null;
  }
  return base58btc.encode(bytes) === text ? bytes : null;
}

export function encodeBase58btc(bytes: Uint8Array): string {
  return base58btc.encode(bytes);
}
