// RsaSigner: RSA-SHA256 on libuv's pool with parsed keys cached and a bound on operations in flight.
import assert from 'node:assert/strict';
import { generateKeyPairSync, verify } from 'node:crypto';
import { describe, it } from 'node:test';
import { PoolBusyError } from '../../actors/worker-pool.js';
import { RsaSigner } from '../../src/federation/rsa.js';

const rsaPem = () =>
  generateKeyPairSync('rsa', { modulusLength: 2048, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });
const a = rsaPem();
const b = rsaPem();
const ed = generateKeyPairSync('ed25519', { publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });

describe('RsaSigner', () => {
  const rsa = new RsaSigner(64);

  it('signs so that node:crypto verifies, and verifies its own signatures', async () => {
    const sig = await rsa.sign(a.privateKey, 'hello');
    assert.ok(verify('sha256', Buffer.from('hello'), a.publicKey, Buffer.from(sig, 'base64')));
    assert.equal(await rsa.verify(a.publicKey, 'hello', Buffer.from(sig, 'base64')), true);
  });

  it('refuses another message, another key, altered bytes, garbage keys and non-RSA keys without throwing', async () => {
    const sig = Buffer.from(await rsa.sign(a.privateKey, 'hello'), 'base64');
    assert.equal(await rsa.verify(a.publicKey, 'hellO', sig), false);
    assert.equal(await rsa.verify(b.publicKey, 'hello', sig), false);
    const altered = Buffer.from(sig);
    altered[10] = altered[10]! ^ 1;
    assert.equal(await rsa.verify(a.publicKey, 'hello', altered), false);
    assert.equal(await rsa.verify('-----BEGIN PUBLIC KEY-----\nnope\n-----END PUBLIC KEY-----', 'hello', sig), false);
    assert.equal(await rsa.verify(ed.publicKey, 'hello', sig), false);
    assert.equal(await rsa.verify(a.publicKey, 'hello', Buffer.alloc(0)), false);
  });

  it('answers PoolBusyError past its bound instead of queueing without limit, and recovers once drained', async () => {
    const sig = Buffer.from(await rsa.sign(a.privateKey, 'x'), 'base64');
    const small = new RsaSigner(2);
    const results = await Promise.allSettled([1, 2, 3, 4].map(() => small.verify(a.publicKey, 'x', sig)));
    // A verification refused for overload is an error (503 at the edge), never a "bad signature".
    assert.deepEqual(
      results.map((r) => (r.status === 'fulfilled' ? r.value : r.reason instanceof PoolBusyError ? 'busy' : r.reason)),
      [true, true, 'busy', 'busy'],
    );
    const signs = await Promise.allSettled([1, 2, 3].map(() => small.sign(a.privateKey, 'x')));
    assert.deepEqual(
      signs.map((r) => r.status === 'rejected' && r.reason instanceof PoolBusyError),
      [false, false, true],
    );
    assert.equal(await small.verify(a.publicKey, 'x', sig), true);
  });
});
