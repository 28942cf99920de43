// Whether a member may quote a status (Mastodon 4.5): a followers-only or direct post never; otherwise as its
// author's quote policy says (nobody, or their followers only), an author always quoting themself. Checked when a
// post is made and again when a scheduled one is published, as the policy or the follow may have changed since.
import type { Account } from '../store/accounts.js';
import type { Status, StatusStore } from '../store/statuses.js';
import { Errors } from '../errors.js';

export async function assertQuotable(statuses: StatusStore, me: Account, quote: Status): Promise<void> {
  if (quote.visibility !== 'public' && quote.visibility !== 'unlisted') throw Errors.forbidden('This status cannot be quoted');
  if (quote.accountId === me.id || quote.quotePolicy === 'public') return;
  const follows = quote.quotePolicy === 'followers' && (await statuses.followedAmong(me.id, [quote.accountId])).has(quote.accountId);
  if (!follows) throw Errors.forbidden('This status cannot be quoted');
}
