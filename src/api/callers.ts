// Who is calling, as route handlers need it. The route's rule has already checked the token (http/auth.ts): these
// only read what it admitted.
import { Errors } from '../errors.js';
import type { MemberPrincipal, Principal } from '../http/types.js';
import type { Account, AccountStore } from '../store/accounts.js';

/** A public read's viewer: the member's account id, or null for an anonymous request or an application token. */
export function viewerOf(who: Principal | null): string | null {
  return who?.record.user?.accountId ?? null;
}

/** The member's account id. */
export function memberIdOf(who: MemberPrincipal): string {
  return who.record.user.accountId;
}

/** The member's account row (one deleted since the token was read: 404). */
export async function memberAccount(accounts: Pick<AccountStore, 'byId'>, who: MemberPrincipal): Promise<Account> {
  const account = await accounts.byId(who.record.user.accountId);
  if (!account) throw Errors.notFound();
  return account;
}
