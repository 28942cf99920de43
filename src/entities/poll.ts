// Poll rows → Mastodon's Poll entity.
import type { Poll } from '../store/polls.js';

export function pollEntity(p: Poll, now: number, ownVotes: readonly number[] | null, isAuthor: boolean) {
  const expired = p.expiresAt !== null && p.expiresAt.getTime() <= now;
  // Totals hidden until the end, except from the author.
  const hidden = p.hideTotals && !expired && !isAuthor;
  return {
    id: p.id,
    expires_at: p.expiresAt ? p.expiresAt.toISOString() : null,
    expired,
    multiple: p.multiple,
    votes_count: hidden ? null : p.counts.reduce((a, b) => a + b, 0),
    voters_count: hidden ? null : p.multiple ? p.votersCount : null,
    options: p.options.map((title, i) => ({ title, votes_count: hidden ? null : (p.counts[i] ?? 0) })),
    emojis: [],
    ...(ownVotes !== null ? { voted: isAuthor || ownVotes.length > 0, own_votes: ownVotes } : {}),
  };
}
