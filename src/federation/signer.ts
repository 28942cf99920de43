// Signs outgoing requests as one of our actors (draft-cavage, hs2019 with RSA keys): a GET signs (request-target) host
// date; a POST `(request-target) content-type date digest host` with a SHA-256 Digest of the body, as Lemmy signs
// and verifies (http-signatures.ts). The private-key operation runs off the event loop (rsa.ts).
import type { OutgoingRequest, Signer } from './http-client.js';
import { headersToSign, sha256Digest, signatureHeader, signingString } from './http-signatures.js';
import type { RsaSigner } from './rsa.js';

export interface SigningKey {
  readonly keyId: string;
  readonly privateKeyPem: string;
}

export function requestSigner(rsa: RsaSigner, key: SigningKey): Signer {
  return async (req: OutgoingRequest) => {
    // The request's headers arrive lower-cased (http-client.ts); the Content-Type signed is the one sent.
    const contentType = req.method === 'POST' ? req.headers['content-type'] : undefined;
    const names = headersToSign(req.method, contentType !== undefined);
    const headers: Record<string, string> = { host: req.url.host, date: new Date().toUTCString() };
    if (contentType !== undefined) headers['content-type'] = contentType;
    if (req.method === 'POST') headers['digest'] = sha256Digest(req.body ?? Buffer.alloc(0));
    const text = signingString({ headers: names }, { method: req.method, target: req.url.pathname + req.url.search, headers });
    const signature = await rsa.sign(key.privateKeyPem, text);
    const out: Record<string, string> = { Host: headers['host']!, Date: headers['date']!, Signature: signatureHeader(key.keyId, names, signature) };
    if (headers['digest']) out['Digest'] = headers['digest'];
    return out;
  };
}
