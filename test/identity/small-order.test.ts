// Small-order Ed25519 keys (identity.md §6): node:crypto accepts a forged signature under the identity point for
// any message, so the verifier must refuse such keys. All 8 small-order points are derived here with
// @noble/ed25519 and every encoding of each must be refused by isSmallOrderKey; real keys must not be.
import assert from 'node:assert/strict';
import { createHash, createPublicKey, randomBytes, verify } from 'node:crypto';
import { describe, it } from 'node:test';
import { CURVE, ExtendedPoint } from '@noble/ed25519';
import run from '../../actors/workers/verify.js';
import { proofHashData, verifyDataIntegrityProof } from '../../src/identity/data-integrity.js';
import { ed25519DidKey, parseEd25519DidKey } from '../../src/identity/did-key.js';
import { ed25519PublicKey, verifyEd25519 } from '../../src/identity/ed25519.js';
import { verifyIdentityStatement } from '../../src/identity/identity-statement.js';
import { encodeBase58btc } from '../../src/identity/multibase.js';
import { isSmallOrderKey } from '../../src/identity/weak-keys.js';
import { ACTOR, CREATED, NOW_MS, asJsonObject, type JsonRecord } from './statement-fixtures.js';

type Point = InstanceType<typeof ExtendedPoint>;

const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const IDENTITY_KEY = Uint8Array.from([1, ...new Array<number>(31).fill(0)]);
/** R = the identity point's encoding, S = 0. */
const FORGED_SIGNATURE = Uint8Array.from([...IDENTITY_KEY, ...new Array<number>(32).fill(0)]);

function nodeVerify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  return verify(null, message, createPublicKey({ key: Buffer.concat([SPKI_PREFIX, publicKey]), format: 'der', type: 'spki' }), signature);
}

function forgedStatement(publicKey: Uint8Array): JsonRecord {
  const did = ed25519DidKey(publicKey);
  return {
    type: 'VerifiableIdentityStatement',
    subject: did,
    alsoKnownAs: ACTOR,
    proof: {
      type: 'DataIntegrityProof',
      cryptosuite: 'eddsa-jcs-2022',
      created: CREATED,
      verificationMethod: did,
      proofPurpose: 'assertionMethod',
      proofValue: encodeBase58btc(FORGED_SIGNATURE),
    },
  };
}

/** Little-endian 32-byte encoding of y (which may be ≥ p) with the x sign bit. */
function encode(y: bigint, signBit: 0 | 1): Uint8Array {
  const bytes = new Uint8Array(32);
  let v = y;
  for (let i = 0; i < 32; i++, v >>= 8n) bytes[i] = Number(v & 0xffn);
  bytes[31]! |= signBit << 7;
  return bytes;
}

/**
 * The 8-torsion subgroup: T = P·L for a decodable P whose P·L·4 is not the identity, then k·T for k = 0..7.
 * Candidates are SHA-256 of a counter, not random bytes, so every run derives the same points the same way.
 */
function smallOrderPoints(): Point[] {
  const L = CURVE.n;
  for (let i = 0; i < 256; i++) {
    let P: Point;
    try {
      P = ExtendedPoint.fromBytes(createHash('sha256').update(`stoa small-order candidate ${i}`).digest());
    } catch {
      continue; // not a curve point: about half of all encodings
    }
    const T = P.multiply(L - 1n, false).add(P);
    if (T.double().double().is0()) continue; // order 1, 2 or 4: not a generator of the torsion group
    const points: Point[] = [ExtendedPoint.ZERO];
    for (let k = 1; k < 8; k++) points.push(points[k - 1]!.add(T));
    assert.ok(points[7]!.add(T).is0(), '8·T is the identity');
    return points;
  }
  throw new Error('no point with an order-8 torsion component in 256 tries');
}

describe('the small-order forgery', () => {
  it('is real: node:crypto verify accepts R = identity, S = 0 under the identity key for any message', () => {
    for (const message of ['', 'any message', 'x'.repeat(1000)]) {
      assert.equal(nodeVerify(IDENTITY_KEY, new TextEncoder().encode(message), FORGED_SIGNATURE), true, message);
    }
    const hash = proofHashData(asJsonObject(forgedStatement(IDENTITY_KEY)), asJsonObject(forgedStatement(IDENTITY_KEY)['proof'] as JsonRecord));
    assert.ok(Buffer.isBuffer(hash));
    assert.equal(verifyEd25519(IDENTITY_KEY, hash, FORGED_SIGNATURE), true, 'the raw Ed25519 helper accepts it too');
    assert.equal(
      verifyDataIntegrityProof(asJsonObject(forgedStatement(IDENTITY_KEY)), IDENTITY_KEY, { purpose: 'assertionMethod', nowMs: NOW_MS }).ok,
      true,
      'the proof layer trusts its caller for the key: the statement layer must refuse it',
    );
  });

  it('is refused by the statement verifier as weak_key, for any actor', () => {
    for (const actor of [ACTOR, 'https://victim.example/users/bob']) {
      const statement = forgedStatement(IDENTITY_KEY);
      statement['alsoKnownAs'] = actor;
      assert.deepEqual(verifyIdentityStatement(JSON.stringify(statement), actor, NOW_MS), { ok: false, reason: 'weak_key' });
    }
  });

  it('is refused by the pool task as weak_public_key', () => {
    const message = new TextEncoder().encode('forged');
    assert.deepEqual(run({ op: 'ed25519-verify', publicKey: IDENTITY_KEY, message, signature: FORGED_SIGNATURE }), { ok: false, reason: 'weak_public_key' });
  });
});

describe('isSmallOrderKey', () => {
  const points = smallOrderPoints();

  it('derives 8 distinct small-order points with @noble/ed25519', () => {
    assert.equal(points.length, 8);
    for (const p of points) assert.ok(p.isSmallOrder());
    const ys = points.map((p) => p.toAffine());
    assert.equal(new Set(ys.map(({ x, y }) => `${x},${y}`)).size, 8);
  });

  it('refuses every encoding of every small-order point: y and y + p below 2^255, sign bit 0 and 1', () => {
    const p = CURVE.p;
    let encodings = 0;
    const distinct = new Set<string>();
    for (const point of points) {
      const { y } = point.toAffine();
      for (const yy of [y, y + p].filter((v) => v < 1n << 255n)) {
        for (const sign of [0, 1] as const) {
          const bytes = encode(yy, sign);
          assert.equal(isSmallOrderKey(bytes), true, Buffer.from(bytes).toString('hex'));
          assert.deepEqual(parseEd25519DidKey(ed25519DidKey(bytes)), { ok: false, reason: 'weak_key' });
          encodings++;
          distinct.add(Buffer.from(bytes).toString('hex'));
        }
      }
    }
    // One y per point, plus y + p for the three points with y < 19 (the identity, y = 1, and the two order-4
    // points, y = 0); two sign bits each.
    assert.equal(encodings, (8 + 3) * 2);
    // Points ±x share a y: 7 distinct y values (0, 1, p−1, the two order-8 ones, p, p + 1) × 2 sign bits.
    assert.equal(distinct.size, 7 * 2);
  });

  it('refuses statements under each small-order key as weak_key, and the pool refuses each as weak_public_key', () => {
    for (const point of points) {
      const bytes = encode(point.toAffine().y, Number(point.toAffine().x & 1n) as 0 | 1);
      assert.deepEqual(verifyIdentityStatement(JSON.stringify(forgedStatement(bytes)), ACTOR, NOW_MS), { ok: false, reason: 'weak_key' });
      assert.deepEqual(run({ op: 'ed25519-verify', publicKey: bytes, message: new Uint8Array(1), signature: FORGED_SIGNATURE }), {
        ok: false,
        reason: 'weak_public_key',
      });
    }
  });

  it('refuses keys that are not 32 bytes long', () => {
    for (const length of [0, 31, 33]) assert.equal(isSmallOrderKey(new Uint8Array(length).fill(0x42)), true, String(length));
  });

  it('accepts 1000 random real public keys', () => {
    for (let i = 0; i < 1000; i++) {
      // Not generateKeyPairSync + export: on Node 20 that deadlocks when a GC lands mid-export (one run in ~15).
      const raw = ed25519PublicKey(randomBytes(32));
      assert.equal(isSmallOrderKey(raw), false, Buffer.from(raw).toString('hex'));
    }
  });

  it('accepts a real key plus a torsion point (mixed order), which is not small-order', () => {
    const real = ExtendedPoint.BASE.multiply(123456789n);
    const mixed = real.add(points[1]!);
    assert.equal(mixed.isSmallOrder(), false);
    assert.equal(isSmallOrderKey(mixed.toBytes()), false);
  });
});
