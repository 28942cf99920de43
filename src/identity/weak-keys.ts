// Small-order Ed25519 public keys. Under such a key a signature with R = identity and S = 0 verifies for ANY message
// with OpenSSL (node:crypto): a universal forgery. Node's key import does not check the point, so we refuse them.
//
// The curve has exactly 8 small-order points; their y-coordinates, with non-canonical encodings (y + p < 2^255), are
// the 7 values below (libsodium's blocklist). The sign bit is ignored, which also covers "negative zero" x. A table
// lookup costs nothing, where decompressing the point with @noble/ed25519 to ask isSmallOrder() costs ~100 µs; the
// test derives all 8 points with @noble/ed25519 and checks this table covers every encoding of each.
const SMALL_ORDER_Y = [
  '0000000000000000000000000000000000000000000000000000000000000000', // y = 0 (order 4)
  '0100000000000000000000000000000000000000000000000000000000000000', // y = 1 (identity)
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05', // order 8
  'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a', // order 8
  'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f', // y = p - 1 (order 2)
  'edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f', // y = p, i.e. 0 (non-canonical)
  'eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f', // y = p + 1, i.e. 1 (non-canonical)
].map((h) => Buffer.from(h, 'hex'));

/** True for a 32-byte public key encoding a point of small order (or a non-canonical encoding of one). */
export function isSmallOrderKey(pub: Uint8Array): boolean {
  if (pub.length !== 32) return true;
  for (const y of SMALL_ORDER_Y) {
    let same = (pub[31]! & 0x7f) === y[31];
    for (let i = 0; same && i < 31; i++) same = pub[i] === y[i];
    if (same) return true;
  }
  return false;
}
