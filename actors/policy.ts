// Restart delays and retry backoff as pure policy functions: attempt number (1-based) → milliseconds, or null to
// give up. Randomness is a parameter so tests can pin it.

export type DelayPolicy = (attempt: number) => number | null;

export const immediately: DelayPolicy = () => 0;

export interface BackoffOptions {
  readonly baseMs: number;
  readonly maxMs: number;
  readonly factor?: number;
  /** Fraction of the delay randomised away (0 = none, 0.5 = up to half), so retries from many sources spread out. */
  readonly jitter?: number;
  readonly maxAttempts?: number;
}

export function exponentialBackoff(o: BackoffOptions, random: () => number = Math.random): DelayPolicy {
  const factor = o.factor ?? 2;
  const jitter = o.jitter ?? 0.2;
  return (attempt) => {
    if (o.maxAttempts !== undefined && attempt > o.maxAttempts) return null;
    const raw = Math.min(o.maxMs, o.baseMs * factor ** Math.max(0, attempt - 1));
    return Math.round(raw * (1 - jitter * random()));
  };
}
