// Password hashing with scrypt (node:crypto, run on libuv's thread pool so the event loop never blocks).
// Stored as `scrypt$N$r$p$salt$hash` so parameters can be raised later without breaking old hashes.
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const N = 16384;
const R = 8;
const P = 1;
const KEYLEN = 32;

// scrypt runs on libuv's small thread pool (shared with fs and dns); at most this many run at once and a bounded
// number wait, so a flood of sign-ins cannot starve everything else. Past the bound: PasswordBusyError → 503.
const MAX_CONCURRENT = 2;
const MAX_WAITING = 64;
let running = 0;
const waiting: (() => void)[] = [];

export class PasswordBusyError extends Error {
  constructor() {
    super('too many password checks in progress');
    this.name = 'PasswordBusyError';
  }
}

async function derive(password: string, salt: Buffer, opts: ScryptOptions): Promise<Buffer> {
  if (running >= MAX_CONCURRENT) {
    if (waiting.length >= MAX_WAITING) throw new PasswordBusyError();
    await new Promise<void>((resolve) => waiting.push(resolve));
  } else {
    running++;
  }
  try {
    return await scryptAsync(password, salt, opts);
  } finally {
    const next = waiting.shift();
    if (next)
      next(); // hand our slot straight to the next waiter
    else running--;
  }
}

function scryptAsync(password: string, salt: Buffer, opts: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, KEYLEN, { ...opts, maxmem: 64 * 1024 * 1024 }, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, { N, r: R, p: P });
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [, n, r, p, salt, hash] = parts as [string, string, string, string, string, string];
  const expected = Buffer.from(hash, 'base64url');
  const key = await derive(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** A hash of nothing, so a sign-in for an unknown user costs the same time as one for a known user. */
let decoy: Promise<string> | undefined;
export function decoyHash(): Promise<string> {
  return (decoy ??= hashPassword(randomBytes(12).toString('hex')));
}

export function generatePassword(): string {
  return randomBytes(15).toString('base64url');
}
