// Watches which nodes of the cluster are alive and gives back the work of those that are gone. Each round is one
// cheap query (the live nodes' names, from PostgreSQL's list of connections); only when a node seen before is
// missing, at the first round, after this node's own listener reconnected (kick) and once a minute as a safety net,
// does it run the release, one statement over every kind of lease. A node killed with -9 loses its sockets at once
// and PostgreSQL drops its connections with them, so its work resumes within one round here.
import { Poller } from './poller.js';

export interface NodeWatchDeps<R> {
  /** Names of the nodes alive now, this one included. */
  readonly liveNodes: () => Promise<string[]>;
  /** Gives back every lease whose owner is not among `live`. */
  readonly release: (live: readonly string[]) => Promise<R>;
  readonly onReleased?: (released: R, gone: readonly string[]) => void;
  readonly everyMs: number;
  readonly onError?: (e: unknown) => void;
}

/** Leases of a node that died unseen (before this node started watching, or while its listener was away). */
const FULL_RELEASE_EVERY_MS = 60_000;

export class NodeWatch<R> {
  readonly poller: Poller;
  private seen = new Set<string>();
  private lastRelease = -Infinity;
  private forced = true;

  constructor(private readonly d: NodeWatchDeps<R>) {
    this.poller = new Poller('node-watch', { maxSleepMs: d.everyMs, minSleepMs: 10, onError: (e) => d.onError?.(e), round: () => this.round() });
  }

  /** Releases at the next round (now) whatever the live nodes: a node may have died while this one was not looking. */
  recheck(): void {
    this.forced = true;
    this.poller.kick();
  }

  private async round(): Promise<number> {
    const live = await this.d.liveNodes();
    const now = new Set(live);
    const gone = [...this.seen].filter((n) => !now.has(n));
    if (this.forced || gone.length > 0 || Date.now() - this.lastRelease >= FULL_RELEASE_EVERY_MS) {
      const released = await this.d.release(live);
      // Only once released: a round that failed leaves the gone nodes to be seen gone again by the next.
      this.forced = false;
      this.lastRelease = Date.now();
      this.d.onReleased?.(released, gone);
    }
    this.seen = now;
    return this.d.everyMs;
  }
}
