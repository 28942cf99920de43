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
