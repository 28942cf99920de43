// draft-cavage HTTP signatures, the dialect the fediverse speaks: parsing the Signature header, building the signing
// string, the Digest of a body, and the checks that need no key (required headers, clock skew, digest). The RSA
// operations themselves run in the worker pool (actors/workers/verify.ts); nothing here is hand-written crypto.
import { createHash } from 'node:crypto';

export const MAX_CLOCK_SKEW_MS = 12 * 3_600_000;

export interface SignatureParams {
  readonly keyId: string;
  readonly algorithm: string;
  readonly headers: readonly string[];
  readonly signature: Buffer;
  readonly created?: number;
  readonly expires?: number;
}

export type SignatureProblem =
  | 'missing_signature'
  | 'malformed_signature'
  | 'unsupported_algorithm'
  | 'missing_signed_header'
  | 'stale_date'
  | 'digest_mismatch';

export class SignatureError extends Error {
  constructor(
    readonly problem: SignatureProblem,
    detail?: string,
  ) {
    super(detail ? `${problem}: ${detail}` : problem);
    this.name = 'SignatureError';
  }
}

const PARAM = /\s*([a-zA-Z]+)\s*=\s*(?:"([^"]*)"|(\d+))\s*(?:,|$)/y;

/** Parses `Signature: keyId="…",algorithm="…",headers="…",signature="…"` (or the Authorization: Signature form). */
export function parseSignatureHeader(value: string | undefined): SignatureParams {
  if (!value) throw new SignatureError('missing_signature');
  const text = value.startsWith('Signature ') ? value.slice(10) : value;
  const params = new Map<string, string>();
  PARAM.lastIndex = 0;
  while (PARAM.lastIndex < text.length) {
    const start = PARAM.lastIndex;
    const m = PARAM.exec(text);
    if (!m || PARAM.lastIndex === start) throw new SignatureError('malformed_signature');
    params.set(m[1]!.toLowerCase(), m[2] ?? m[3]!);
  }
  const keyId = params.get('keyid');
  const signature = params.get('signature');
  if (!keyId || !signature || !/^[A-Za-z0-9+/]+={0,2}$/.test(signature)) throw new SignatureError('malformed_signature');
  const algorithm = (params.get('algorithm') ?? 'hs2019').toLowerCase();
  // hs2019 lets the key decide the algorithm; our keys are RSA, so both mean RSASSA-PKCS1-v1_5 with SHA-256.
  if (algorithm !== 'rsa-sha256' && algorithm !== 'hs2019') throw new SignatureError('unsupported_algorithm', algorithm);
  const headers = (params.get('headers') ?? 'date').toLowerCase().split(/\s+/).filter(Boolean);
  const num = (k: string) => (params.has(k) ? Number(params.get(k)) : undefined);
  return { keyId, algorithm, headers, signature: Buffer.from(signature, 'base64'), created: num('created'), expires: num('expires') };
}

export interface SignedRequestParts {
  readonly method: string;
  /** Path and query as sent on the request line. */
  readonly target: string;
  /** Lower-case header names. */
  readonly headers: Readonly<Record<string, string | undefined>>;
}

export function signingString(p: SignatureParams | { headers: readonly string[]; created?: number; expires?: number }, r: SignedRequestParts): string {
  const lines: string[] = [];
  for (const h of p.headers) {
    if (h === '(request-target)') lines.push(`(request-target): ${r.method.toLowerCase()} ${r.target}`);
    else if (h === '(created)') {
      if (p.created === undefined) throw new SignatureError('missing_signed_header', h);
      lines.push(`(created): ${p.created}`);
    } else if (h === '(expires)') {
      if (p.expires === undefined) throw new SignatureError('missing_signed_header', h);
      lines.push(`(expires): ${p.expires}`);
    } else {
      const v = r.headers[h];
      if (v === undefined) throw new SignatureError('missing_signed_header', h);
      lines.push(`${h}: ${v.trim()}`);
    }
  }
  return lines.join('\n');
}

export function sha256Digest(body: Buffer | string): string {
  return 'SHA-256=' + createHash('sha256').update(body).digest('base64');
}

/**
 * The checks an inbox POST must pass before any key is fetched: (request-target), host, a date and the digest are
 * signed; the date is within 12 hours; the Digest header matches the body exactly.
 */
export function checkSignedPost(p: SignatureParams, r: SignedRequestParts, body: Buffer, now: number): void {
  for (const required of ['(request-target)', 'host', 'digest']) {
    if (!p.headers.includes(required)) throw new SignatureError('missing_signed_header', required);
  }
  checkFreshness(p, r, now);
  const digest = r.headers['digest'];
  if (!digest) throw new SignatureError('missing_signed_header', 'digest');
  const expected = sha256Digest(body).slice('SHA-256='.length);
  const sha = digest
    .split(',')
    .map((d) => d.trim())
    .find((d) => /^sha-256=/i.test(d));
  if (!sha || sha.slice(8) !== expected) throw new SignatureError('digest_mismatch');
}

function checkFreshness(p: SignatureParams, r: SignedRequestParts, now: number): void {
  if (p.headers.includes('date')) {
    const date = Date.parse(r.headers['date'] ?? '');
    if (Number.isNaN(date)) throw new SignatureError('missing_signed_header', 'date');
    if (Math.abs(now - date) > MAX_CLOCK_SKEW_MS) throw new SignatureError('stale_date');
  } else if (p.headers.includes('(created)') && p.created !== undefined) {
    if (Math.abs(now - p.created * 1000) > MAX_CLOCK_SKEW_MS) throw new SignatureError('stale_date');
  } else {
    throw new SignatureError('missing_signed_header', 'date');
  }
  if (p.expires !== undefined && p.expires * 1000 < now) throw new SignatureError('stale_date', 'expired');
}

/**
 * The headers we sign. A POST signs what Lemmy's verifier (activitypub-federation, http-signature-normalization)
 * signs and expects, `(request-target) content-type date digest host`, which covers what Mastodon requires
 * ((request-target), host, date, digest) and its body's type too; without a Content-Type, the rest. A GET carries
 * no body: `(request-target) host date`.
 */
export function headersToSign(method: 'GET' | 'POST', hasContentType = false): readonly string[] {
  if (method === 'GET') return ['(request-target)', 'host', 'date'];
  return hasContentType ? ['(request-target)', 'content-type', 'date', 'digest', 'host'] : ['(request-target)', 'date', 'digest', 'host'];
}

/**
 * `algorithm="hs2019"`: the key decides (ours are RSA, so RSASSA-PKCS1-v1_5 over SHA-256). Lemmy sends and expects
 * it; Mastodon, GoToSocial, Misskey and Fedify accept it alongside rsa-sha256 (we accept both, parseSignatureHeader).
 */
export function signatureHeader(keyId: string, headers: readonly string[], signatureB64: string): string {
  return `keyId="${keyId}",algorithm="hs2019",headers="${headers.join(' ')}",signature="${signatureB64}"`;
}
