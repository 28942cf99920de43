// Which of our statuses anyone may fetch by its address (the Note at /users/name/statuses/id and /@name/id, and
// /api/oembed): a local public or unlisted status, not a boost, not deleted, by the account the address names
// (its username in any case, as Mastodon's find_local), whose author is not suspended.
import type { Account, AccountStore } from '../store/accounts.js';
import { isId } from '../store/ids.js';
import type { Status, StatusStore } from '../store/statuses.js';

export async function openLocalStatus(
  d: { readonly accounts: AccountStore; readonly statuses: StatusStore },
  username: string,
  id: string,
): Promise<{ status: Status; author: Account } | undefined> {
  const status = isId(id) ? await d.statuses.byId(id) : undefined;
  if (!status?.local || status.deletedAt || status.reblogOfId) return undefined;
  if (status.visibility !== 'public' && status.visibility !== 'unlisted') return undefined;
  const author = await d.accounts.byId(status.accountId);
  if (!author || author.username.toLowerCase() !== username.toLowerCase()) return undefined;
  // A suspended author's posts are gone for anonymous readers (store/visibility.ts).
  return (await d.statuses.canSee(status, null)) ? { status, author } : undefined;
}
