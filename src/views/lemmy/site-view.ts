// GET /api/v3/site as Lemmy 0.19 clients read it (lemmy-js-client's GetSiteResponse): the site from the instance's
// settings, the operator's downvote switch, the admins, a version naming this adapter after the Lemmy API it speaks
// (clients read a semver prefix), and for a signed-in member `my_user`: the communities they follow, moderate and
// block, and the people they block.
import type { Config } from '../../../config/schema.js';
import type { AccountStore } from '../../store/accounts.js';
import type { LinkAggregatorStore } from '../../store/link-aggregator.js';
import type { LinkSiteStore } from '../../store/link-site.js';
import type { LocalUser } from '../../store/users.js';
import type { LocalUris } from '../../urls/local-uris.js';
import { hasPermission } from '../../auth/permissions.js';
import { STOA_VERSION } from '../../version.js';
import type { LemmyObjects } from './objects.js';
import type { PersonViews } from './person-views.js';

/** The Lemmy API this adapter speaks, and the client release it is tested against (lemmy-js-client). */
export const LEMMY_API_VERSION = '0.19.9';
export const ADAPTER_VERSION = `${LEMMY_API_VERSION}-stoa-${STOA_VERSION}`;

// Lemmy's language ids (its `language` table): 0 is Undetermined, 37 English.
export const ALL_LANGUAGES = [
  { id: 0, code: 'und', name: 'Undetermined' },
  { id: 37, code: 'en', name: 'English' },
] as const;

const REGISTRATION_MODE = { closed: 'Closed', approval: 'RequireApplication', open: 'Open' } as const;

export interface SiteViewDeps {
  readonly config: Config;
  readonly uris: LocalUris;
  readonly accounts: AccountStore;
  readonly links: LinkAggregatorStore;
  readonly site: LinkSiteStore;
  readonly objects: LemmyObjects;
  readonly people: PersonViews;
}

export class SiteView {
  // The site's creation time as Lemmy shows it: when this node first rendered it (stable for its life).
  private readonly published = new Date().toISOString();

  constructor(private readonly d: SiteViewDeps) {}

  /** Lemmy's Site: this server, as its instance actor presents it. */
  async site() {
    const { config, uris } = this.d;
    const actor = await this.d.accounts.instanceActor();
    return {
      id: 1,
      name: config.instance.title,
      sidebar: config.instance.description,
      published: actor?.createdAt.toISOString() ?? this.published,
      description: config.instance.description,
      actor_id: `${config.baseUrl}/`,
      last_refreshed_at: this.published,
      inbox_url: uris.sharedInbox,
      public_key: actor?.publicKeyPem ?? '',
      instance_id: await this.d.links.instanceId(''),
    };
  }

  async response(user: LocalUser | null) {
    const { config } = this.d;
    const [site, counts, adminIds] = await Promise.all([this.site(), this.d.site.siteCounts(), this.d.site.adminAccountIds()]);
    const admins = await this.d.people.views(adminIds, user?.accountId ?? null);
    return {
      site_view: {
        site,
        local_site: {
          id: 1,
          site_id: 1,
          site_setup: true,
          enable_downvotes: config.linkAggregator.downvotes,
          enable_nsfw: true,
          community_creation_admin_only: true,
          require_email_verification: false,
          private_instance: false,
          default_theme: 'browser',
          default_post_listing_type: 'Subscribed',
          hide_modlog_mod_names: true,
          application_email_admins: false,
          actor_name_max_length: 30,
          federation_enabled: true,
          captcha_enabled: false,
          captcha_difficulty: 'medium',
          published: site.published,
          registration_mode: REGISTRATION_MODE[config.registrations],
          reports_email_admins: false,
          federation_signed_fetch: true,
          default_post_listing_mode: 'List',
          default_sort_type: 'Active',
        },
        local_site_rate_limit: {
          local_site_id: 1,
          message: 180,
          message_per_second: 60,
          post: 6,
          post_per_second: 600,
          register: 10,
          register_per_second: 3600,
          image: 6,
          image_per_second: 3600,
          comment: 6,
          comment_per_second: 600,
          search: 60,
          search_per_second: 600,
          published: site.published,
          import_user_settings: 1,
          import_user_settings_per_second: 86400,
        },
        counts: {
          site_id: 1,
          users: counts.users,
          posts: counts.posts,
          comments: counts.comments,
          communities: counts.communities,
          users_active_day: 0,
          users_active_week: 0,
          users_active_month: 0,
          users_active_half_year: 0,
        },
      },
      admins,
      version: ADAPTER_VERSION,
      ...(user ? { my_user: await this.myUser(user) } : {}),
      all_languages: ALL_LANGUAGES,
      discussion_languages: [],
      taglines: [],
      custom_emojis: [],
      blocked_urls: [],
    };
  }

  /** Lemmy's MyUserInfo for a signed-in member. */
  async myUser(user: LocalUser) {
    const me = user.accountId;
    const [view] = await this.d.people.views([me], me);
    if (!view) return undefined;
    const person = view.person;
    const [followed, moderated, blocks] = await Promise.all([
      this.d.site.followedCommunities(me),
      this.d.site.moderatedBy(me),
      this.d.site.blockedAccounts(me),
    ]);
    const [communities, blockedPeople] = await Promise.all([
      this.d.objects.communities([...followed, ...moderated, ...blocks.communities], me),
      this.d.objects.people(blocks.people, me),
    ]);
    const community = (id: number) => communities.get(id)?.community;
    const each = <T>(ids: readonly number[], f: (c: NonNullable<ReturnType<typeof community>>) => T): T[] =>
      ids.flatMap((id) => {
        const c = community(id);
        return c ? [f(c)] : [];
      });
    return {
      local_user_view: {
        local_user: {
          id: person.id,
          person_id: person.id,
          email: user.email,
          show_nsfw: false,
          theme: 'browser',
          default_sort_type: 'Active',
          default_listing_type: 'Subscribed',
          interface_language: 'browser',
          show_avatars: true,
          send_notifications_to_email: false,
          show_scores: true,
          show_bot_accounts: true,
          show_read_posts: true,
          email_verified: true,
          accepted_application: user.approved,
          open_links_in_new_tab: false,
          blur_nsfw: true,
          auto_expand: false,
          infinite_scroll_enabled: false,
          admin: hasPermission(user.permissions, 'administrator'),
          post_listing_mode: 'List',
          totp_2fa_enabled: false,
          enable_keyboard_navigation: false,
          enable_animated_images: true,
          collapse_bot_comments: false,
        },
        local_user_vote_display_mode: { local_user_id: person.id, score: true, upvotes: true, downvotes: true, upvote_percentage: false },
        person,
        counts: view.counts,
      },
      follows: each(followed, (c) => ({ community: c, follower: person })),
      moderates: each(moderated, (c) => ({ community: c, moderator: person })),
      community_blocks: each(blocks.communities, (c) => ({ person, community: c })),
      instance_blocks: [],
      person_blocks: blocks.people.flatMap((id) => {
        const target = blockedPeople.get(id)?.person;
        return target ? [{ person, target }] : [];
      }),
      discussion_languages: [],
    };
  }
}
