// Mastodon's trend scores (app/models/trends/tags.rb, links.rb, statuses.rb), as pure functions of the counts a
// refresh reads. Tags and links: the accounts that used the item today (observed) against yesterday's (expected,
// at least 1); at or above the threshold and above the baseline the score is (observed − expected)² / expected.
// Its peak is kept and decays with a half-life; after the cooldown a new peak replaces it. Statuses: boosts plus
// favourites, at or above the threshold, decaying with the status's age.

export interface PeakOptions {
  readonly threshold: number;
  readonly reviewThreshold: number;
  readonly maxScoreCooldownMs: number;
  readonly maxScoreHalflifeMs: number;
  readonly decayThreshold: number;
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

export const TAG_OPTIONS: PeakOptions = { threshold: 5, reviewThreshold: 3, maxScoreCooldownMs: 2 * DAY, maxScoreHalflifeMs: 4 * HOUR, decayThreshold: 1 };
export const LINK_OPTIONS: PeakOptions = { threshold: 5, reviewThreshold: 3, maxScoreCooldownMs: 2 * DAY, maxScoreHalflifeMs: 8 * HOUR, decayThreshold: 1 };
export const STATUS_OPTIONS = { threshold: 5, reviewThreshold: 3, scoreHalflifeMs: HOUR, decayThreshold: 0.3 } as const;

export interface Peak {
  readonly maxScore: number;
  /** Epoch milliseconds of the peak, or null: none yet. */
  readonly maxScoreAt: number | null;
}

export interface PeakScore extends Peak {
  /** The peak decayed to `at`. */
  readonly score: number;
  readonly listed: boolean;
}

/** A tag's or link's score at `at` from today's and yesterday's distinct accounts and its previous peak. */
export function peakScore(observed: number, yesterday: number, prev: Peak | null, at: number, o: PeakOptions): PeakScore {
  const expected = yesterday > 0 ? yesterday : 1;
  let maxScore = prev?.maxScore ?? 0;
  let maxScoreAt = prev?.maxScoreAt ?? null;
  if (maxScoreAt === null || maxScoreAt < at - o.maxScoreCooldownMs) {
    maxScore = 0;
    maxScoreAt = null;
  }
  const now = expected > observed || observed < o.threshold ? 0 : (observed - expected) ** 2 / expected;
  if (now > maxScore) {
    maxScore = now;
    maxScoreAt = at;
  }
  const score = maxScore === 0 || maxScoreAt === null ? 0 : maxScore * 0.5 ** ((at - maxScoreAt) / o.maxScoreHalflifeMs);
  return { score, maxScore, maxScoreAt, listed: score >= o.decayThreshold };
}

/** A status's score at `at` from its boosts and favourites and its creation time. */
export function statusScore(interactions: number, createdAt: number, at: number): { score: number; listed: boolean } {
  const o = STATUS_OPTIONS;
  const expected = 1;
  const raw = expected > interactions || interactions < o.threshold ? 0 : interactions;
  const score = raw * 0.5 ** (Math.max(0, at - createdAt) / o.scoreHalflifeMs);
  return { score, listed: score >= o.decayThreshold };
}
