// The supervision tree: the root supervisor's children in start order (they stop in reverse), each with its restart
// type and shutdown time, then the start function of each, in the same order. A start connects the child to the
// Wake port of whoever queues its work (again on each restart). What a child needs is decided before the list is
// built and passed in: the node's name, under which the listener registers and every lease is taken, comes from
// app.ts; siblings reach each other only through the wake ports made here with the list.
import type { Config } from '../config/schema.js';
import { DeliveryScheduler } from '../actors/delivery-scheduler.js';
import { RunDeadlineError } from '../actors/history-origin.js';
import { HistoryScheduler } from '../actors/history-scheduler.js';
import { startHistorySweep } from '../actors/history-sweep.js';
import { startInboxWorker } from '../actors/inbox-worker.js';
import { NodeWatch } from '../actors/node-watch.js';
import { exponentialBackoff } from '../actors/policy.js';
import { startPollCloser } from '../actors/poll-closer.js';
import { startTrendsRefresher } from '../actors/trends-refresher.js';
import { startRankRefresher } from '../actors/rank-refresher.js';
import { startScheduledPublisher } from '../actors/scheduled-publisher.js';
import { startCardFetcher } from '../actors/card-fetcher.js';
import { startMediaProcessor } from '../actors/media-processor.js';
import { startHomeFanOut } from '../actors/home-fan-out.js';
import type { Poller } from '../actors/poller.js';
import type { Process } from '../actors/process.js';
import { Slots } from '../actors/slots.js';
import { Supervisor, type ChildSpec, type SupervisorSpec } from '../actors/supervisor.js';
import type { Streaming } from './api/streaming/streaming.js';
import type { Clock } from './clock.js';
import { clusterEvents } from './cluster-events.js';
import { deliverer } from './federation/deliver.js';
import type { Logger } from './log.js';
import { tempDirOf } from './media/temp-files.js';
import { pushSender } from './push/push-sender.js';
import { processNext } from './services/media-processing.js';
import { AuthEventListener, LISTENER_RECONNECT_MAX_MS, liveNodes } from './store/auth-events.js';
import type { Database } from './store/db.js';
import type { HistoryJobRunner } from './store/history-jobs.js';
import { HISTORY_LIMITS, type ClaimedJob, type JobOutcome } from './store/history-types.js';
import type { Released } from './store/leases.js';
import { Wake } from './wake.js';
import type { Wiring } from './wiring.js';

/** The root: one_for_one, and more than 5 restarts within 30 s give up (the process exits 1). */
const ROOT: SupervisorSpec = { strategy: 'one_for_one', intensity: 5, periodMs: 30_000 };

export interface TreeDeps {
  readonly config: Config;
  readonly log: Logger;
  readonly db: Database;
  readonly clock: Clock;
  /** The queues and what works them, and what the cluster's events reach (wiring.ts's `tree` group). */
  readonly w: Wiring['tree'];
  /** Fed by the listener: it exists before the tree starts. */
  readonly streaming: Streaming;
  /** This node's name (newNodeName): its listener's, and the owner named by every lease its actors take. */
  readonly node: string;
  /** Runs one remote history job (the real runner, or the tests' own). */
  readonly historyRunner: HistoryJobRunner;
}

/** The tree started: the root, and the children the front end and tests reach, as they run now. */
export interface Tree {
  readonly supervisor: Supervisor;
  /** Started once (temporary): it lives as long as the root. */
  readonly authEvents: AuthEventListener;
  readonly historyScheduler: () => HistoryScheduler | undefined;
  readonly pollCloser: () => Poller | undefined;
  readonly historySweep: () => Poller | undefined;
}

/** Starts the root supervisor over rootChildren, its events logged; a child that cannot start stops those before. */
export async function startTree(d: TreeDeps): Promise<Tree> {
  const { children, running } = rootChildren(d);
  const supLog = d.log.child({ component: 'supervisor' });
  const supervisor = await Supervisor.start('root', ROOT, children, {
    onEvent: (e) => supLog.warn({ ...e, reason: e.reason?.kind }, `supervisor ${e.kind}`),
  });
  return {
    supervisor,
    authEvents: running.authEvents!,
    historyScheduler: () => running.historyScheduler,
    pollCloser: () => running.pollCloser,
    historySweep: () => running.historySweep,
  };
}

/** Wake ports between siblings: a wake before the child answering it has started is dropped. */
interface Ports {
  /** The listener (re)connected: the node watch looks for gone nodes now. */
  readonly recheckNodes: Wake;
  /** The node watch gave back a gone node's sweep: the history sweep claims it now. */
  readonly sweepDue: Wake;
}

/** What each child's start is given; `running` is where a child records itself for the Tree (not for siblings). */
interface Child extends TreeDeps {
  readonly ports: Ports;
  readonly running: Running;
}

interface Running {
  authEvents?: AuthEventListener;
  historyScheduler?: HistoryScheduler;
  pollCloser?: Poller;
  historySweep?: Poller;
}

/** The root's children, in start order. */
export function rootChildren(deps: TreeDeps): { children: readonly ChildSpec[]; running: Running } {
  const d: Child = { ...deps, ports: { recheckNodes: new Wake(), sweepDue: new Wake() }, running: {} };
  const { w } = d;
  const children: ChildSpec[] = [
    { id: 'verify-pool', start: () => w.verifyPool, restart: 'temporary', shutdownMs: 5_000 },
    { id: 'image-pool', start: () => w.imagePool, restart: 'temporary', shutdownMs: 5_000 },
    { id: 'auth-events', start: () => startAuthEvents(d), restart: 'temporary', shutdownMs: 2_000 },
    { id: 'token-usage', start: () => w.tokenUsage, restart: 'temporary', shutdownMs: 5_000 },
    { id: 'inbox-worker', start: () => startInbox(d), restart: 'permanent', shutdownMs: 5_000 },
    { id: 'delivery', start: () => startDelivery(d), restart: 'permanent', shutdownMs: 10_000 },
    { id: 'push', start: () => startPush(d), restart: 'permanent', shutdownMs: 10_000 },
    { id: 'history', start: () => startHistory(d), restart: 'permanent', shutdownMs: 10_000 },
    { id: 'poll-closer', start: () => startPolls(d), restart: 'permanent', shutdownMs: 5_000 },
    { id: 'history-sweep', start: () => startSweep(d), restart: 'permanent', shutdownMs: 5_000 },
    { id: 'scheduled-publisher', start: () => startScheduled(d), restart: 'permanent', shutdownMs: 5_000 },
    { id: 'card-fetcher', start: () => startCards(d), restart: 'permanent', shutdownMs: 5_000 },
    { id: 'media-processor', start: () => startMediaJobs(d), restart: 'permanent', shutdownMs: 5_000 },
    { id: 'home-fan-out', start: () => startHomeFanOutJobs(d), restart: 'permanent', shutdownMs: 5_000 },
    { id: 'node-watch', start: () => startNodeWatch(d), restart: 'permanent', shutdownMs: 5_000 },
    { id: 'trends', start: () => startTrends(d), restart: 'permanent', shutdownMs: 5_000 },
    { id: 'lemmy-ranks', start: () => startLemmyRanks(d), restart: 'permanent', shutdownMs: 5_000 },
  ];
  return { children, running: d.running };
}

/** The LISTEN/NOTIFY connection (it reconnects by itself); what each event does is cluster-events.ts. */
async function startAuthEvents(d: Child): Promise<Process> {
  const { w, streaming, ports } = d;
  const handlers = clusterEvents({ w: w.cluster, streaming, recheckNodes: () => ports.recheckNodes.wake() });
  d.running.authEvents = await AuthEventListener.start(d.db.connectionString, d.node, handlers, d.log.child({ component: 'auth-events' }));
  return d.running.authEvents;
}

function startInbox({ w, config, node }: Child): Process {
  const worker = startInboxWorker({
    queue: w.inboxJobs,
    handle: (job) => w.inboxHandlers.process(job),
    owner: node,
    // Small batches under a long lease: a job may wait on remote fetches (10 s each), and an expired lease would
    // let another node process the same activity. A dead node's jobs are given back at once (node-watch).
    leaseMs: config.federation.inboxLeaseMs,
    batch: 4,
    backoff: exponentialBackoff({ baseMs: 1_000, maxMs: 60_000, maxAttempts: 5 }),
    onFailure: (job, err, willRetry) => w.fedLog.warn({ err, activity: job.activityId, willRetry }, 'inbox activity failed'),
    onError: (err) => w.fedLog.error({ err }, 'inbox worker round failed'),
  });
  w.wakes.inboxQueued.connect(() => worker.kick());
  return worker;
}

/** What delivery and push share: the same retries, leases and per-host bounds, this node the owner of every lease. */
function deliveryMachinery({ config, db, node }: Child) {
  return {
    backoff: exponentialBackoff({ baseMs: config.federation.deliveryRetryBaseMs, maxMs: 6 * 3_600_000, jitter: 0.2 }),
    owner: node,
    concurrency: config.federation.deliveryConcurrency,
    leaseMs: config.federation.deliveryLeaseMs,
    liveNodes: () => liveNodes(db.pool, node),
    hostIdleMs: 30_000,
  };
}

/** The delivery scheduler and one actor per destination host, under a supervisor of their own. */
async function startDelivery(d: Child): Promise<Process> {
  const { w } = d;
  const { fedLog } = w;
  const { supervisor, scheduler } = await DeliveryScheduler.start({
    ...deliveryMachinery(d),
    queue: w.deliveries,
    send: deliverer(w.httpClient, w.accounts, w.localActors),
    maxHosts: 256,
    onGiveUp: (dl, error) => fedLog.info({ inbox: dl.inboxUrl, activity: dl.activityId, attempts: dl.attempts, error }, 'delivery given up'),
    onError: (err) => fedLog.error({ err }, 'delivery scheduler round failed'),
    onExpired: (count) => fedLog.info({ count }, 'deliveries given up unsent (past their give-up time)'),
  });
  w.wakes.deliveryDue.connect((hosts) => scheduler.kick(hosts));
  return supervisor;
}

/** Web Push: the delivery machinery over the push queue, one actor per push service host. */
async function startPush(d: Child): Promise<Process> {
  const { w, config } = d;
  const { fedLog } = w;
  const { supervisor, scheduler } = await DeliveryScheduler.start({
    ...deliveryMachinery(d),
    name: 'push',
    queue: w.pushDeliveries,
    send: pushSender({
      config,
      http: w.httpClient,
      vapid: w.vapid,
      tokenKey: w.pushTokenKey,
      pushes: w.pushDeliveries,
      subscriptions: w.pushSubscriptions,
      accounts: w.accounts,
      statuses: w.statuses,
    }),
    maxHosts: 64,
    onGiveUp: (p, error) => fedLog.info({ host: new URL(p.inboxUrl).host, notification: p.notificationId, attempts: p.attempts, error }, 'push given up'),
    onError: (err) => fedLog.error({ err }, 'push scheduler round failed'),
    onExpired: (count) => fedLog.info({ count }, 'pushes given up unsent (past their give-up time)'),
  });
  w.wakes.pushDue.connect((hosts) => scheduler.kick(hosts));
  return supervisor;
}

/** A run that threw (a bug, the database away) is retried after this, growing with its attempts, at most a day. */
const historyRetry = exponentialBackoff({ baseMs: 60_000, maxMs: 24 * 3_600_000, jitter: 0.2 });

/** Remote history: the scheduler and one actor per origin, under a supervisor of their own. */
async function startHistory({ w, config, db, node, historyRunner, running }: Child): Promise<Process> {
  const { fedLog } = w;
  const { supervisor, scheduler } = await HistoryScheduler.start({
    jobs: w.historyJobs,
    ledger: w.historyJobs,
    runner: historyRunner,
    owner: node,
    leaseMs: config.federation.historyLeaseMs,
    jobMs: HISTORY_LIMITS.jobMs,
    enabled: async () => (await w.historySettings.current()).enabled,
    failed: (job: ClaimedJob, err: unknown): JobOutcome => {
      fedLog.error({ err, origin: job.origin, account: job.accountId }, 'remote history job failed');
      const delay = historyRetry(job.attempts + 1) ?? 24 * 3_600_000;
      return { kind: 'backoff', reason: err instanceof RunDeadlineError ? 'timeout' : 'transport', retryAt: new Date(Date.now() + delay), originWide: false };
    },
    liveNodes: () => liveNodes(db.pool, node),
    maxOrigins: 256,
    slots: new Slots(config.federation.historyJobsPerNode),
    originIdleMs: 30_000,
    onError: (err) => fedLog.error({ err }, 'history scheduler round failed'),
  });
  running.historyScheduler = scheduler;
  w.wakes.historyDue.connect(() => scheduler.kick());
  return supervisor;
}

/** Announces ended polls and sends due poll Updates. */
function startPolls({ w, config, node, running }: Child): Process {
  const { fedLog } = w;
  const closer = startPollCloser({
    polls: w.polls,
    sendDueUpdates: (limit) =>
      w.polls.sendDueUpdates(
        limit,
        { ms: config.federation.pollUpdateLeaseMs, owner: node },
        (p) => w.pollService.sendUpdate(p),
        (poll, err) => fedLog.warn({ err, poll }, 'poll update not sent; retried later'),
      ),
    onClosed: (count) => fedLog.info({ count }, 'polls ended'),
    onError: (err) => fedLog.error({ err }, 'poll closer round failed'),
  });
  running.pollCloser = closer;
  w.wakes.pollsDue.connect(() => closer.kick());
  return closer;
}

/** Publishes scheduled posts when they fall due. */
function startScheduled({ w, log }: Child): Process {
  const publisher = startScheduledPublisher({
    publishDue: (limit) => w.scheduledPosts.publishDue(limit),
    onError: (err) => log.error({ err, component: 'scheduled-publisher' }, 'scheduled publisher round failed'),
  });
  w.wakes.scheduledDue.connect(() => publisher.kick());
  return publisher;
}

/** Fetches link preview cards for statuses queued with a link. */
function startCards({ w, log, node }: Child): Process {
  const fetcher = startCardFetcher({
    processDue: (limit) => w.linkCards.processDue(node, limit),
    onError: (err) => log.error({ err, component: 'card-fetcher' }, 'card fetcher round failed'),
  });
  w.wakes.cardsDue.connect(() => fetcher.kick());
  return fetcher;
}

/** Makes uploaded video and audio servable, one job at a time on this node. */
function startMediaJobs({ w, config, node, log }: Child): Process {
  const p = config.media.processing;
  const mediaLog = log.child({ component: 'media-processor' });
  const processor = startMediaProcessor({
    processNext: () =>
      processNext({
        jobs: w.mediaJobs,
        files: w.mediaFiles,
        tempDir: tempDirOf(config.dataDir),
        log: mediaLog,
        owner: node,
        leaseMs: p.leaseMs,
        limits: { wallMs: p.timeoutMs, cpuSeconds: p.cpuSeconds },
        holdMs: p.holdMs,
      }),
    nextLeaseEndMs: () => w.mediaJobs.nextLeaseEndMs(),
    onError: (err) => mediaLog.error({ err }, 'media processor round failed'),
  });
  w.wakes.mediaQueued.connect(() => processor.kick());
  return processor;
}

/** Writes the home-feed rows of posts by authors with many local followers, batch by batch (migration 078). */
function startHomeFanOutJobs({ w, config, node, log }: Child): Process {
  const onError = (err: unknown) => log.error({ err, component: 'home-fan-out' }, 'home fan-out round failed');
  const fanOut = startHomeFanOut({ jobs: w.homeFeedJobs, owner: node, ...config.homeFeed, onError });
  w.wakes.homeFeedQueued.connect(() => fanOut.kick());
  return fanOut;
}

/** The retention sweep of remote history runs this often, on one node of the cluster. */
const HISTORY_SWEEP_EVERY_MS = 3_600_000;

/** The hourly retention sweep of remote history, and the removal of the files it left. */
function startSweep({ w, clock, node, ports, running }: Child): Process {
  const { fedLog } = w;
  const sweep = startHistorySweep({
    claim: () => w.historyPrune.claimSweep(new Date(clock.now()), HISTORY_SWEEP_EVERY_MS, node),
    sweep: async () => {
      const swept = await w.historyPrune.prune('sweep', (await w.historySettings.current()).retentionDays, new Date(clock.now()));
      await w.historyPrune.sweepDone(node);
      return swept;
    },
    cleanup: async (limit) => {
      const names = await w.historyPrune.pendingCleanup(limit);
      for (const name of names) await w.mediaFiles.remove(name);
      await w.historyPrune.cleaned(names);
      return names.length;
    },
    onSwept: (r) => {
      if (r.removed > 0) fedLog.info(r, 'remote history swept');
    },
    onError: (err) => fedLog.error({ err }, 'history sweep round failed'),
  });
  running.historySweep = sweep;
  w.wakes.mediaCleanupQueued.connect(() => sweep.kick());
  ports.sweepDue.connect(() => sweep.kick());
  return sweep;
}

/** Trends are refreshed this often (Mastodon's RefreshScheduler), on one node of the cluster at a time. */
const TRENDS_EVERY_MS = 5 * 60_000;

/** Recomputes the trending tags, statuses and links. */
function startTrends({ w, clock }: Child): Process {
  return startTrendsRefresher({
    refresh: () => w.trends.refreshIfDue(new Date(clock.now()), TRENDS_EVERY_MS),
    onError: (err) => w.fedLog.error({ err }, 'trends refresh failed'),
  });
}

/**
 * The link aggregator's ranks decay this often, on one node of the cluster at a time: Lemmy 0.19's scheduler
 * (update_hot_ranks every 10 minutes), so Hot and Active order quiet posts as a Lemmy server would. A vote or a comment
 * ranks its post at once (triggers); between refreshes a quiet post's rank is at most 10 minutes stale.
 */
const LEMMY_RANKS_EVERY_MS = 10 * 60_000;

/** Decays the Hot and Active ranks of the week's posts and comments (the link aggregator, /api/v3). */
function startLemmyRanks({ w, clock }: Child): Process {
  return startRankRefresher({
    refresh: async () => {
      const started = performance.now();
      const r = await w.linkRanks.refreshIfDue(new Date(clock.now()), LEMMY_RANKS_EVERY_MS);
      if (r.refreshed) w.fedLog.debug({ posts: r.posts, ms: Math.round(performance.now() - started) }, 'lemmy ranks refreshed');
      return r;
    },
    onError: (err) => w.fedLog.error({ err }, 'lemmy rank refresh failed'),
  });
}

/**
 * Gives back the work of nodes that are gone. Inbox jobs, deliveries, pushes and history jobs freed are notified as
 * newly queued work (every node wakes for them); poll Updates and the sweep wake this node's actors.
 */
function startNodeWatch({ w, config, db, node, ports }: Child): Process {
  const { fedLog } = w;
  const watch = new NodeWatch<Released>({
    liveNodes: () => liveNodes(db.pool, node),
    release: (live) => w.leases.releaseExcept(live),
    everyMs: config.federation.nodeCheckMs,
    graceMs: LISTENER_RECONNECT_MAX_MS + 1_000,
    onReleased: (released, gone) => {
      if (Object.keys(released).length === 0) return;
      fedLog.info({ released, gone }, 'work of nodes that are gone given back');
      if (released.polls) w.wakes.pollsDue.wake();
      if (released.sweep) ports.sweepDue.wake();
    },
    onError: (err) => fedLog.error({ err }, 'node watch round failed'),
  });
  ports.recheckNodes.connect(() => watch.recheck());
  return watch.poller;
}
