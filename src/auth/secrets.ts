// Client secrets, authorization codes and access tokens: 256 random bits, shown once, stored only as SHA-256.
// A plain hash (not scrypt) is right here: the secrets are random, so there is nothing to brute-force.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

export function hashSecret(secret: string): Buffer {
  return createHash('sha256').update(secret).digest();
}

/** Compares a presented secret with a stored hash in constant time. */
export function secretMatches(secret: string, storedHash: Buffer): boolean {
  const h = hashSecret(secret);
  return h.length === storedHash.length && timingSafeEqual(h, storedHash);
}
