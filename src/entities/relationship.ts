// Mastodon Relationship entity: the viewer's relationship with one account.
import type { Relationship } from '../store/follows.js';

export function relationshipEntity(r: Relationship) {
  return {
    id: r.id,
    following: r.following,
    showing_reblogs: r.showingReblogs,
    notifying: r.notifying,
    languages: r.languages,
    followed_by: r.followedBy,
    blocking: r.blocking,
    blocked_by: r.blockedBy,
    muting: r.muting,
    muting_notifications: r.muting && r.mutingNotifications,
    muting_expires_at: r.mutingExpiresAt ? r.mutingExpiresAt.toISOString() : null,
    requested: r.requested,
    requested_by: r.requestedBy,
    domain_blocking: r.domainBlocking,
    endorsed: r.endorsed,
    note: r.note,
  };
}
