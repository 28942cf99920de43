// What this node does when the cluster tells it something: one row per event kind the listener hears on LISTEN
// (store/auth-events.ts parses the channels), each saying which cache it drops or which actor it wakes. Every node
// hears its own notifications too, so work this node queued (its wake ports already told its actors) wakes it again.
import type { Streaming } from './api/streaming/streaming.js';
import type { AuthEvent, AuthEventHandlers, CacheEvent, WorkEvent } from './store/auth-events.js';
import { DOMAIN_BLOCKS_KEY } from './store/domain-blocks.js';
import { HISTORY_SETTINGS_KEY } from './store/history-settings.js';
import type { Wiring } from './wiring.js';

export interface ClusterEventDeps {
  readonly w: Wiring['tree']['cluster'];
  readonly streaming: Pick<Streaming, 'hub' | 'fanout'>;
  /** Asks the node watch to look for gone nodes now (a wake port: dropped until the watch has started). */
  readonly recheckNodes: () => void;
}

type Rows<E extends { kind: string }> = { readonly [K in E['kind']]: (e: E & { kind: K }, d: ClusterEventDeps) => void };

/** `stoa_auth`: a token, a member or a member's grant to an app changed (and every auth event reaches the streams). */
const AUTH: Rows<AuthEvent> = {
  token: (e, { w }) => w.tokenCache.dropToken(e.id),
  user: (e, { w }) => w.tokenCache.dropUser(e.id),
  grant: (e, { w }) => w.tokenCache.dropGrant(e.userId, e.appId),
};

/** `stoa_cache`: something a rendered status shows changed. */
const CACHE: Rows<CacheEvent> = {
  status: (e, { w }) => w.statusCache.dropStatus(e.id),
  account: (e, { w }) => {
    w.statusCache.dropAccount(e.id);
    w.accountCache.drop(e.id);
  },
  filters: (e, { w }) => w.filterCache.drop(e.id),
};

/** `settings:<key>` on `stoa_work`: a cached setting changed, by key (no node caches other keys). */
const SETTINGS = new Map<string, (d: ClusterEventDeps) => void>([
  [DOMAIN_BLOCKS_KEY, ({ w }) => w.domainBlocks.invalidate()],
  [
    HISTORY_SETTINGS_KEY,
    ({ w }) => {
      w.historySettings.invalidate();
      // The feature may have been switched on: queued jobs wait for a round.
      w.wakes.historyDue.wake();
    },
  ],
]);

/** `stoa_work`: work queued on any node (this one too), or a cached setting changed. */
const WORK: Rows<WorkEvent> = {
  inbox: (_e, { w }) => w.wakes.inboxQueued.wake(),
  delivery: (e, { w }) => w.wakes.deliveryDue.wake([e.host]),
  push: (e, { w }) => w.wakes.pushDue.wake([e.host]),
  history: (_e, { w }) => w.wakes.historyDue.wake(),
  settings: (e, d) => SETTINGS.get(e.key)?.(d),
  scheduled: (_e, { w }) => w.wakes.scheduledDue.wake(),
  cards: (_e, { w }) => w.wakes.cardsDue.wake(),
  media: (_e, { w }) => w.wakes.mediaQueued.wake(),
  homefeed: (_e, { w }) => w.wakes.homeFeedQueued.wake(),
};

/** The listener connected (true) or lost (false): no notification reaches this node while it is away. */
function reset(connected: boolean, { w, streaming, recheckNodes }: ClusterEventDeps): void {
  w.tokenCache.reset(connected);
  w.historySettings.reset(connected);
  w.statusCache.reset(connected);
  w.accountCache.reset(connected);
  w.filterCache.reset(connected);
  w.domainBlocks.reset(connected);
  // Events raised while this node was not listening are lost to its streams; health says so meanwhile.
  streaming.hub.listening = connected;
  // Notifications sent while this node was not listening are lost: look for their work now.
  if (connected) {
    // A node may have died meanwhile, unseen: its leases are looked for now.
    recheckNodes();
    w.wakes.inboxQueued.wake();
    w.wakes.deliveryDue.wake([]);
    w.wakes.pushDue.wake([]);
    w.wakes.historyDue.wake();
    w.wakes.scheduledDue.wake();
    w.wakes.cardsDue.wake();
    w.wakes.mediaQueued.wake();
    w.wakes.homeFeedQueued.wake();
  }
}

function dispatch<E extends { kind: string }>(rows: Rows<E>, e: E, d: ClusterEventDeps): void {
  (rows[e.kind as E['kind']] as (e: E, d: ClusterEventDeps) => void)(e, d);
}

/** The listener's handlers: each event looked up in its table above. */
export function clusterEvents(d: ClusterEventDeps): AuthEventHandlers {
  return {
    onEvent: (e) => {
      dispatch(AUTH, e, d);
      d.streaming.hub.onAuthEvent(e);
    },
    // `stoa_stream`: an event for the clients streaming from this node.
    onStream: (payload) => d.streaming.fanout.heard(payload),
    onCache: (e) => dispatch(CACHE, e, d),
    onWork: (e) => dispatch(WORK, e, d),
    onReset: (connected) => reset(connected, d),
  };
}
