// A wake-up port: how a store or service that queues work wakes the actor that does it. Stores are built before the
// actors start (the actors need them), so the port is made first, handed to the constructor of whoever queues work,
// and connected when the actor starts (again on each restart); a wake before that is dropped: the work is durable
// and the actor's first round finds it. A stopped actor ignores its kicks. Work queued inside a transaction is
// invisible until it commits, so a port built with `defer` (the database's afterCommit) holds the wake until then.
export class Wake<A extends unknown[] = []> {
  private target: ((...args: A) => void) | null = null;

  constructor(private readonly defer?: (fn: () => void) => void) {}

  /** Points the port at the actor (the latest one, after a restart). */
  connect(target: (...args: A) => void): void {
    this.target = target;
  }

  wake(...args: A): void {
    if (this.defer) this.defer(() => this.target?.(...args));
    else this.target?.(...args);
  }
}

/** The node's wake ports, one per kind of queued work (wiring.ts hands them out; supervision.ts connects them). */
export function workWakes(afterCommit: (fn: () => void) => void) {
  return {
    deliveryDue: new Wake<[hosts: readonly string[]]>(afterCommit),
    pollsDue: new Wake(afterCommit),
    inboxQueued: new Wake(afterCommit),
    // Remote history jobs queued or given back, or the feature switched on: the history scheduler looks for work.
    historyDue: new Wake(afterCommit),
    // A manual prune queued media files: the history sweep deletes them now rather than within the minute.
    mediaCleanupQueued: new Wake(afterCommit),
    // Pushes queued for these push service hosts (heard on stoa_work: the trigger that queues them notifies).
    pushDue: new Wake<[hosts: readonly string[]]>(),
    // A scheduled post made or moved: the scheduled-publisher looks again for the earliest due time.
    scheduledDue: new Wake(afterCommit),
    // A status queued for its link's card: the card-fetcher takes it.
    cardsDue: new Wake(afterCommit),
    // A video or audio upload queued for processing: this node's media processor takes it.
    mediaQueued: new Wake(afterCommit),
    // A post's home-feed fan-out queued as a job (heard on stoa_work: the trigger that queues it notifies).
    homeFeedQueued: new Wake(),
  };
}
