// What the routes acting on another account (follow, endorse, …) share: the account a path names, and the
// Relationship they answer with once done.
import { relationshipEntity } from '../entities/relationship.js';
import { Errors } from '../errors.js';
import { json } from '../http/respond.js';
import type { Reply } from '../http/types.js';
import type { Account, AccountStore } from '../store/accounts.js';
import type { FollowStore } from '../store/follows.js';

/** The account `id` names, when a member may act on it: not deleted, not the instance actor, a local one with its user. */
export async function actedOn(accounts: AccountStore, id: string): Promise<Account> {
  const a = await accounts.byId(id);
  if (!a || a.deletedAt || a.instanceActor || (a.domain === null && !a.hasUser)) throw Errors.notFound();
  return a;
}

/** The viewer's Relationship with `other`, as the answer. */
export async function relationshipReply(follows: FollowStore, viewer: Account, other: Account): Promise<Reply> {
  return json(200, relationshipEntity((await follows.relationships(viewer.id, [other.id]))[0]!));
}
