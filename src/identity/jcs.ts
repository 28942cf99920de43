// JSON Canonicalization Scheme (RFC 8785) through `canonicalize` 4.0.0 (5.x declares Node 22). It throws on lone
// surrogates, NaN and Infinity, as RFC 8785 §3.2.2 requires; a too-deep document overflows the stack. All of these
// become null here: the caller reports a refusal, never a crash.
import canonicalize from 'canonicalize';

export function jcs(value: unknown): string | null {
  try {
    const text = canonicalize(value);
    return typeof text === 'string' ? text : null;
  } catch {
    return null;
  }
}
