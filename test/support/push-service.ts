// A loopback Web Push service for tests: it records every POST, answers as the test says (201 by default), and opens
// a message as a browser's push service and user agent would: the VAPID JWT checked (ES256 under the server's public
// key, aud = the endpoint's origin, exp within 24 h, sub a mailto: or https: URL) and the body decrypted with the
// subscriber's private key and auth secret (http_ece, web-push's own dependency: aes128gcm, or legacy aesgcm).
import assert from 'node:assert/strict';
import { createECDH, createPublicKey, type ECDH, randomBytes, verify } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';

interface Ece {
  decrypt(body: Buffer, params: Record<string, unknown>): Buffer;
}
const ece = createRequire(import.meta.url)('http_ece') as Ece;

export interface ReceivedPush {
  readonly path: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: Buffer;
  readonly at: number;
}

export interface PushAnswer {
  readonly status: number;
  readonly headers?: Record<string, string>;
}

export interface PushService {
  readonly origin: string;
  readonly received: ReceivedPush[];
  /** How the service answers a POST (after recording it); default 201. */
  answer: (r: ReceivedPush) => PushAnswer;
  close(): Promise<void>;
}

export async function startPushService(): Promise<PushService> {
  const received: ReceivedPush[] = [];
  const service: PushService = {
    origin: '',
    received,
    answer: () => ({ status: 201 }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: ReceivedPush = { path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks), at: Date.now() };
      received.push(r);
      const a = service.answer(r);
      res.writeHead(a.status, a.headers ?? {});
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  (service as { origin: string }).origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return service;
}

/** A browser's subscription: its endpoint on the service, its P-256 key pair and auth secret. */
export interface Subscriber {
  readonly endpoint: string;
  readonly p256dh: string;
  readonly auth: string;
  readonly ecdh: ECDH;
}

export function newSubscriber(service: PushService, name: string): Subscriber {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return {
    endpoint: `${service.origin}/push/${name}`,
    p256dh: ecdh.getPublicKey().toString('base64url'),
    auth: randomBytes(16).toString('base64url'),
    ecdh,
  };
}

export interface OpenedPush {
  // biome-ignore lint/suspicious/noExplicitAny: the payload JSON, asserted field by field
  readonly payload: any;
  /** The payload as sent (notification_id's digits are checked against it). */
  readonly text: string;
  readonly claims: { aud: string; exp: number; sub: string };
}

function verifyVapid(jwt: string, serverKey: string, endpoint: string): OpenedPush['claims'] {
  const [h, p, sig] = jwt.split('.');
  assert.ok(h && p && sig, 'a JWT of three parts');
  const header = JSON.parse(Buffer.from(h, 'base64url').toString());
  assert.equal(header.alg, 'ES256');
  const point = Buffer.from(serverKey, 'base64url');
  assert.equal(point.length, 65);
  const key = createPublicKey({
    key: { kty: 'EC', crv: 'P-256', x: point.subarray(1, 33).toString('base64url'), y: point.subarray(33).toString('base64url') },
    format: 'jwk',
  });
  assert.ok(verify('sha256', Buffer.from(`${h}.${p}`), { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(sig, 'base64url')), 'the VAPID signature verifies');
  const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
  assert.equal(claims.aud, new URL(endpoint).origin);
  const now = Date.now() / 1000;
  assert.ok(claims.exp > now && claims.exp <= now + 24 * 3600 + 60, `exp ${claims.exp} within a day`);
  assert.match(claims.sub, /^(mailto:|https:)/);
  return claims;
}

/** Checks the VAPID headers of a push and decrypts it; fails the test when either is wrong. */
export function openPush(r: ReceivedPush, sub: Subscriber, serverKey: string): OpenedPush {
  const encoding = r.headers['content-encoding'];
  const authz = r.headers.authorization ?? '';
  let jwt: string;
  let body: Buffer;
  if (encoding === 'aes128gcm') {
    const m = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(authz);
    assert.ok(m, `vapid authorization: ${authz}`);
    assert.equal(m[2], serverKey);
    jwt = m[1]!;
    body = ece.decrypt(r.body, { version: 'aes128gcm', privateKey: sub.ecdh, authSecret: sub.auth });
  } else {
    assert.equal(encoding, 'aesgcm');
    const m = /^WebPush (\S+)$/.exec(authz);
    assert.ok(m, `WebPush authorization: ${authz}`);
    jwt = m[1]!;
    const cryptoKey = String(r.headers['crypto-key']);
    const dh = /(?:^|;)\s*dh=([A-Za-z0-9_-]+)/.exec(cryptoKey)?.[1];
    const vapidKey = /(?:^|;)\s*p256ecdsa=([A-Za-z0-9_-]+)/.exec(cryptoKey)?.[1];
    assert.ok(dh, `Crypto-Key names the sender's dh: ${cryptoKey}`);
    assert.equal(vapidKey, serverKey);
    const salt = /salt=([A-Za-z0-9_-]+)/.exec(String(r.headers.encryption))?.[1];
    assert.ok(salt, 'Encryption names the salt');
    body = ece.decrypt(r.body, { version: 'aesgcm', privateKey: sub.ecdh, dh, salt, authSecret: sub.auth });
  }
  const claims = verifyVapid(jwt, serverKey, sub.endpoint);
  const text = body.toString('utf8');
  return { payload: JSON.parse(text), text, claims };
}
