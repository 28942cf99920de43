// RSA key pairs for our actors (HTTP signatures). Generation runs on libuv's thread pool, not the event loop.
import { generateKeyPair } from 'node:crypto';

export interface RsaKeyPair {
  readonly publicKeyPem: string;
  readonly privateKeyPem: string;
}

export function generateRsaKeyPair(): Promise<RsaKeyPair> {
  return new Promise((resolve, reject) =>
    generateKeyPair(
      'rsa',
      { modulusLength: 2048, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } },
      (err, publicKeyPem, privateKeyPem) => (err ? reject(err) : resolve({ publicKeyPem, privateKeyPem })),
    ),
  );
}
