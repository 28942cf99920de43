// Signs outgoing requests as one of our actors (draft-cavage, rsa-sha256): GET signs (request-target) host date,
// POST adds a SHA-256 Digest of the body. The private-key operation runs off the event loop (rsa.ts).
import type { OutgoingRequest, Signer } from './http-client.js';
import { headersToSign, sha256Digest, signatureHeader, signingString } from './http-signatures.js';
import type { RsaSigner } from './rsa.js';

export interface SigningKey {
  readonly keyId: string;
  readonly privateKeyPem: string;
}

export function requestSigner(rsa: RsaSigner, key: SigningKey): Signer {
  return async (req: OutgoingRequest) => {
    const names = headersToSign(req.method);
    const headers: Record<string, string> = { host: req.url.host, date: new Date().toUTCString() };
    if (req.method === 'POST') headers['digest'] = sha256Digest(req.body ?? Buffer.alloc(0));
    const text = signingString({ headers: names }, { method: req.method, target: req.url.pathname + req.url.search, headers });
    const signature = await rsa.sign(key.privateKeyPem, text);
    const out: Record<string, string> = { Host: headers['host']!, Date: headers['date']!, Signature: signatureHeader(key.keyId, names, signature) };
    if (headers['digest']) out['Digest'] = headers['digest'];
    return out;
  };
}
