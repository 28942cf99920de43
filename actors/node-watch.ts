// Watches which nodes of the cluster are alive and gives back the work of those that are gone. Each round is one
// cheap query (the live nodes' names, from PostgreSQL's list of connections); only when a node seen before is
// missing, at the first round, after this node's own listener reconnected (kick) and once a minute as a safety net,
// does it run the release, one statement over every kind of lease. A node killed with -9 loses its sockets at once
// and PostgreSQL drops its connections with them, so its work resumes one grace period later. The grace covers a
// listener that only blinked (dropped, then reconnecting within its backoff) while its node goes on working: its
// leases are not taken from it, nor its work done twice.
import { Poller } from './poller.js';

export interface NodeWatchDeps<R> {
  /** Names of the nodes alive now, this one included. */
  readonly liveNodes: () => Promise<string[]>;
  /** Gives back every lease whose owner is not among `live`. */
  readonly release: (live: readonly string[]) => Promise<R>;
  readonly onReleased?: (released: R, gone: readonly string[]) => void;
  readonly everyMs: number;
  /** How long a node must stay missing to count as gone: longer than a listener's longest reconnect delay. */
  readonly graceMs: number;
  readonly onError?: (e: unknown) => void;
}

/** Leases of a node that died unseen (before this node started watching, or while its listener was away). */
const FULL_RELEASE_EVERY_MS = 60_000;

export class NodeWatch<R> {
  readonly poller: Poller;
  private seen = new Set<string>();
  /** Nodes seen before and missing since then: gone once missing for the grace. */
  private readonly missingSince = new Map<string, number>();
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
    const at = Date.now();
    for (const n of this.seen) if (!now.has(n) && !this.missingSince.has(n)) this.missingSince.set(n, at);
    for (const n of now) this.missingSince.delete(n);
    const gone: string[] = [];
    const waiting: string[] = [];
    let nextGraceEnd = Number.POSITIVE_INFINITY;
    for (const [n, since] of this.missingSince) {
      if (at - since >= this.d.graceMs) gone.push(n);
      else {
        waiting.push(n);
        nextGraceEnd = Math.min(nextGraceEnd, since + this.d.graceMs);
      }
    }
    if (this.forced || gone.length > 0 || at - this.lastRelease >= FULL_RELEASE_EVERY_MS) {
      // Nodes still within their grace keep their leases, as the live ones do.
      const released = await this.d.release([...live, ...waiting]);
      // Only once released: a round that failed leaves the gone nodes to be seen gone again by the next.
      this.forced = false;
      this.lastRelease = Date.now();
      for (const n of gone) this.missingSince.delete(n);
      this.d.onReleased?.(released, gone);
    }
    this.seen = now;
    return Math.max(10, Math.min(this.d.everyMs, nextGraceEnd - Date.now()));
  }
}
