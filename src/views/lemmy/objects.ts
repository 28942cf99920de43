// Lemmy 0.19's safe objects (lemmy-js-client's Person, Community, CommunityView, CommunityModeratorView) from account
// rows: a person is any account (local member or remote actor), a community a remote Group. Images go through the
// same addresses the Mastodon API gives (our proxy for remote ones); a missing image is absent, as Lemmy sends it.
import type { Config } from '../../../config/schema.js';
import type { CommunityCountsRow, CommunityRow, LinkRowStore, PersonRow } from '../../store/link-rows.js';
import type { LocalUris } from '../../urls/local-uris.js';
import { profileImageUrl, remoteImageUrl } from '../../urls/media-urls.js';

export type LemmySubscribed = 'Subscribed' | 'NotSubscribed' | 'Pending';

export interface LemmyPerson {
  id: number;
  name: string;
  display_name?: string;
  avatar?: string;
  banned: boolean;
  published: string;
  actor_id: string;
  bio?: string;
  local: boolean;
  banner?: string;
  deleted: boolean;
  bot_account: boolean;
  instance_id: number;
}

export interface LemmyCommunity {
  id: number;
  name: string;
  title: string;
  description?: string;
  removed: boolean;
  published: string;
  deleted: boolean;
  nsfw: boolean;
  actor_id: string;
  local: boolean;
  icon?: string;
  banner?: string;
  hidden: boolean;
  posting_restricted_to_mods: boolean;
  instance_id: number;
  visibility: 'Public' | 'LocalOnly';
}

export interface LemmyCommunityView {
  community: LemmyCommunity;
  subscribed: LemmySubscribed;
  blocked: boolean;
  counts: {
    community_id: number;
    subscribers: number;
    posts: number;
    comments: number;
    published: string;
    users_active_day: number;
    users_active_week: number;
    users_active_month: number;
    users_active_half_year: number;
    subscribers_local: number;
  };
  banned_from_community: boolean;
}

export interface LemmyCommunityModeratorView {
  community: LemmyCommunity;
  moderator: LemmyPerson;
}

/** What rendering an account needs: addresses of images and of our own actors. */
export interface LemmyAddresses {
  readonly config: Config;
  readonly uris: LocalUris;
}

type AccountImages = Pick<PersonRow, 'accountId' | 'domain' | 'avatarFile' | 'avatarRemoteUrl' | 'headerFile' | 'headerRemoteUrl'>;

function image(at: LemmyAddresses, a: AccountImages, kind: 'avatar' | 'header'): string | undefined {
  const remote = kind === 'avatar' ? a.avatarRemoteUrl : a.headerRemoteUrl;
  const file = kind === 'avatar' ? a.avatarFile : a.headerFile;
  if (a.domain) return remote ? remoteImageUrl(at.config, a.accountId, kind, remote) : undefined;
  return file ? profileImageUrl(at.config, kind === 'avatar' ? 'avatars' : 'headers', file) : undefined;
}

/** Sets `key` only when there is a value: Lemmy leaves absent optionals out of its JSON. */
function withOptional<T extends object>(o: T, extra: Record<string, string | null | undefined>): T {
  for (const [k, v] of Object.entries(extra)) if (v) (o as Record<string, unknown>)[k] = v;
  return o;
}

export function lemmyPerson(at: LemmyAddresses, r: PersonRow): LemmyPerson {
  return withOptional<LemmyPerson>(
    {
      id: r.personId,
      name: r.username,
      banned: r.suspended,
      published: r.published,
      actor_id: r.uri ?? at.uris.actor(r.username),
      local: r.domain === null,
      deleted: r.deleted,
      bot_account: r.bot,
      instance_id: r.instanceId,
    },
    { display_name: r.displayName, avatar: image(at, r, 'avatar'), bio: r.note, banner: image(at, r, 'header') },
  );
}

export function lemmyCommunity(at: LemmyAddresses, r: CommunityRow): LemmyCommunity {
  return withOptional<LemmyCommunity>(
    {
      id: r.communityId,
      name: r.username,
      // A Group without a name shows its handle, as Lemmy requires a title.
      title: r.displayName || r.username,
      removed: r.suspended,
      published: r.published,
      deleted: r.deleted,
      nsfw: r.nsfw,
      actor_id: r.uri ?? at.uris.actor(r.username),
      local: r.domain === null,
      hidden: false,
      posting_restricted_to_mods: r.postingRestrictedToMods,
      instance_id: r.instanceId,
      visibility: 'Public',
    },
    { description: r.note, icon: image(at, r, 'avatar'), banner: image(at, r, 'header') },
  );
}

export function lemmyCommunityView(at: LemmyAddresses, r: CommunityRow, counts: CommunityCountsRow | undefined): LemmyCommunityView {
  return {
    community: lemmyCommunity(at, r),
    subscribed: r.subscribed,
    blocked: r.blocked,
    counts: {
      community_id: r.communityId,
      // The Group's own count when it sends one; never fewer than the members here who follow it.
      subscribers: Math.max(counts?.subscribers ?? 0, counts?.subscribersLocal ?? 0),
      posts: counts?.posts ?? 0,
      comments: counts?.comments ?? 0,
      published: r.published,
      users_active_day: 0,
      users_active_week: 0,
      users_active_month: 0,
      users_active_half_year: 0,
      subscribers_local: counts?.subscribersLocal ?? 0,
    },
    banned_from_community: false,
  };
}

/** A person as a view needs them: the object, and the viewer's block and the admin flag beside it. */
export interface PersonEntry {
  readonly person: LemmyPerson;
  readonly admin: boolean;
  readonly blocked: boolean;
}

/** A community as a view needs it: the object, and the viewer's follow and block beside it. */
export interface CommunityEntry {
  readonly community: LemmyCommunity;
  readonly subscribed: LemmySubscribed;
  readonly blocked: boolean;
}

/** People and communities for a page, each batch read in one statement. */
export class LemmyObjects {
  constructor(
    readonly rows: LinkRowStore,
    readonly at: LemmyAddresses,
  ) {}

  /** By account id. */
  async people(accountIds: readonly string[], viewer: string | null): Promise<Map<string, PersonEntry>> {
    const rows = await this.rows.people(accountIds, viewer);
    return new Map(rows.map((r) => [r.accountId, { person: lemmyPerson(this.at, r), admin: r.admin, blocked: r.blocked }]));
  }

  /** By community id. */
  async communities(communityIds: readonly number[], viewer: string | null): Promise<Map<number, CommunityEntry>> {
    const rows = await this.rows.communities(communityIds, viewer);
    return new Map(rows.map((r) => [r.communityId, { community: lemmyCommunity(this.at, r), subscribed: r.subscribed, blocked: r.blocked }]));
  }

  /** CommunityViews by community id, with their counts. */
  async communityViews(communityIds: readonly number[], viewer: string | null): Promise<Map<number, LemmyCommunityView>> {
    const [rows, counts] = await Promise.all([this.rows.communities(communityIds, viewer), this.rows.communityCounts(communityIds)]);
    const byId = new Map(counts.map((c) => [c.communityId, c]));
    return new Map(rows.map((r) => [r.communityId, lemmyCommunityView(this.at, r, byId.get(r.communityId))]));
  }

  /** The community's moderators, in order, as CommunityModeratorViews. */
  async moderators(communityId: number, viewer: string | null): Promise<LemmyCommunityModeratorView[]> {
    const [accounts, communities] = await Promise.all([this.rows.moderators(communityId), this.communities([communityId], viewer)]);
    const community = communities.get(communityId);
    if (!community) return [];
    const people = await this.people(accounts, viewer);
    return accounts.flatMap((a) => {
      const p = people.get(a);
      return p ? [{ community: community.community, moderator: p.person }] : [];
    });
  }
}
