// Every store over the one database, built once per node by wiring.ts.
import type { Config } from '../../config/schema.js';
import type { Wake } from '../wake.js';
import { AccountStore } from './accounts.js';
import { BlockStore } from './blocks.js';
import { ConversationStore } from './conversations.js';
import type { Database } from './db.js';
import { DeliveryStore } from './deliveries.js';
import { HistoryJobStore } from './history-jobs.js';
import { FollowStore } from './follows.js';
import { HistoryPruneStore } from './history-prune.js';
import { HistorySettingsStore } from './history-settings.js';
import { IdentityStatementStore } from './identity-statements.js';
import { CachedInstanceCounts } from './instance-stats.js';
import { InboxJobStore } from './inbox-jobs.js';
import { LeaseStore } from './leases.js';
import { InteractionStore } from './interactions.js';
import { ListStore } from './lists.js';
import { FilterStore } from './filters.js';
import { MarkerStore } from './markers.js';
import { HomeFeedJobStore } from './home-feed-jobs.js';
import { MediaJobStore } from './media-jobs.js';
import { MediaStore } from './media.js';
import { MuteStore } from './mutes.js';
import { AccountNoteStore } from './account-notes.js';
import { EndorsementStore } from './endorsements.js';
import { NotificationGroupStore } from './notification-groups.js';
import { NotificationRequestStore } from './notification-requests.js';
import { NotificationStore } from './notifications.js';
import { AppStore } from './oauth-apps.js';
import { CodeStore } from './oauth-codes.js';
import { TokenStore } from './oauth-tokens.js';
import { PollStore } from './polls.js';
import { ThrottleCounterStore } from './throttle-counters.js';
import { CachedQueueStats } from './queue-stats.js';
import { ReactionStore } from './reactions.js';
import { RemoteHistoryStore } from './remote-history.js';
import { RemoteImageStore } from './remote-images.js';
import { ReportStore } from './reports.js';
import { SessionStore } from './sessions.js';
import { SettingsStore } from './settings.js';
import { StatusStore } from './statuses.js';
import { StreamAudienceStore } from './stream-audience.js';
import { TagStore } from './tags.js';
import { LinkAggregatorStore } from './link-aggregator.js';
import { CommunityRulesStore } from './community-rules.js';
import { TimelineStore } from './timelines.js';
import { TrendPublisherStore } from './trend-publishers.js';
import { TrendStore } from './trends.js';
import { ThreadStore } from './threads.js';
import { REF_PAGES } from './ref-pages.js';
import { UserStore } from './users.js';
import { MemberPreferenceStore } from './member-preferences.js';
import { DomainBlockStore } from './domain-blocks.js';
import { AccountDomainBlockStore } from './account-domain-blocks.js';
import { SuggestionStore } from './suggestions.js';
import { DirectoryStore } from './directory.js';
import { AccountModerationStore } from './account-moderation.js';
import { PushDeliveryStore } from './push-deliveries.js';
import { PushSubscriptionStore } from './push-subscriptions.js';
import { AnnouncementStore } from './announcements.js';
import { InstanceActivityStore } from './instance-activity.js';
import { InstanceRuleStore } from './instance-rules.js';
import { InstanceTextStore } from './instance-texts.js';
import { PreviewCardStore } from './preview-cards.js';
import { ScheduledStatusStore } from './scheduled-statuses.js';
import { QuoteStore } from './quotes.js';

/** Every store over the one database. */
export function stores(db: Database, config: Config, pollsDue: Wake) {
  return {
    users: new UserStore(db),
    settings: new SettingsStore(db),
    sessions: new SessionStore(db),
    apps: new AppStore(db),
    codes: new CodeStore(db),
    tokens: new TokenStore(db),
    accounts: new AccountStore(db),
    follows: new FollowStore(db),
    blocks: new BlockStore(db),
    mutes: new MuteStore(db),
    // A member's notes on accounts, and the accounts they endorse.
    accountNotes: new AccountNoteStore(db),
    endorsements: new EndorsementStore(db),
    inboxJobs: new InboxJobStore(db),
    deliveries: new DeliveryStore(db),
    historyJobs: new HistoryJobStore(db, undefined, config.federation.historyDbConnections),
    statements: new IdentityStatementStore(db),
    statuses: new StatusStore(db),
    scheduledStatuses: new ScheduledStatusStore(db),
    previewCards: new PreviewCardStore(db),
    quotes: new QuoteStore(db),
    threads: new ThreadStore(db),
    timelines: new TimelineStore(db),
    // The client API's timelines name their statuses by row version (ref-pages.ts): the render cache answers for rows.
    timelineRefs: new TimelineStore(db, REF_PAGES),
    interactions: new InteractionStore(db),
    notifications: new NotificationStore(db),
    notificationGroups: new NotificationGroupStore(db),
    notificationRequests: new NotificationRequestStore(db),
    conversations: new ConversationStore(db),
    // Streaming: who among this node's clients is shown an event.
    streamAudience: new StreamAudienceStore(db),
    markers: new MarkerStore(db),
    lists: new ListStore(db),
    // Followed and featured hashtags.
    tags: new TagStore(db),
    // The link aggregator (/api/v3): communities, posts, comments and votes, with Lemmy's numeric ids.
    linkAggregator: new LinkAggregatorStore(db),
    communityRules: new CommunityRulesStore(db),
    filters: new FilterStore(db),
    reports: new ReportStore(db),
    media: new MediaStore(db),
    mediaJobs: new MediaJobStore(db),
    // Home-feed fan-outs of authors with many local followers (migration 078).
    homeFeedJobs: new HomeFeedJobStore(db),
    polls: new PollStore(db, { updateDelayMs: config.federation.pollUpdateDelayMs }, pollsDue),
    reactions: new ReactionStore(db),
    remoteImages: new RemoteImageStore(db),
    memberPreferences: new MemberPreferenceStore(db),
    // Remote history: the operator's settings (cached, invalidated across nodes) and the per-actor records.
    historySettings: new HistorySettingsStore(db),
    remoteHistories: new RemoteHistoryStore(db),
    historyPrune: new HistoryPruneStore(db),
    // Federation policy: the operator's domain blocks (cached, invalidated across nodes).
    domainBlocks: new DomainBlockStore(db),
    accountDomainBlocks: new AccountDomainBlockStore(db),
    // Discovery: follow suggestions (staff's featured accounts, dismissals) and the profile directory.
    suggestions: new SuggestionStore(db),
    directory: new DirectoryStore(db),
    accountModeration: new AccountModerationStore(db),
    // Web Push: the members' subscriptions and the queue of pushes (filled by a trigger on notifications).
    pushSubscriptions: new PushSubscriptionStore(db),
    pushDeliveries: new PushDeliveryStore(db),
    instanceCounts: new CachedInstanceCounts(db, config.instance.statsMaxAgeMs),
    // Read only by /metrics: at most one count of the queue tables every 5 s, however often it is scraped.
    queueStats: new CachedQueueStats(db, 5_000),
    // The cluster: throttle counters every node shares, and the leases a node that is gone leaves behind.
    throttleCounters: new ThrottleCounterStore(db),
    leases: new LeaseStore(db),
    // Trends: the rankings a supervised actor refreshes, the moderators' reviews, the operator's settings.
    trends: new TrendStore(db),
    trendPublishers: new TrendPublisherStore(db),
    // Announcements, the server's rules and the operator's texts (issue 36).
    announcements: new AnnouncementStore(db),
    instanceRules: new InstanceRuleStore(db),
    instanceTexts: new InstanceTextStore(db),
    instanceActivity: new InstanceActivityStore(db),
  };
}

export type Stores = ReturnType<typeof stores>;
