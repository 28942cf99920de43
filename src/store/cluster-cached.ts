// One value read from the database and cached on this node, dropped when any node changes it. The change notifies
// WORK_CHANNEL (`settings:<key>`) in its own transaction and every node drops its copy when it hears it
// (cluster-events.ts). While the listening connection is down a notification could be missed, so the copy is not trusted
// (reset(false)) until it is back: every read goes to the database. A generation counter keeps a read that raced an
// invalidation from storing what was just dropped.
export class ClusterCached<T> {
  private cached: T | null = null;
  private gen = 0;
  private trusted = false;

  constructor(private readonly load: () => Promise<T>) {}

  async get(): Promise<T> {
    if (this.trusted && this.cached !== null) return this.cached;
    const gen = this.gen;
    const value = await this.load();
    if (this.trusted && gen === this.gen) this.cached = value;
    return value;
  }

  /** Drops the cached copy (a node changed the value). */
  invalidate(): void {
    this.gen++;
    this.cached = null;
  }

  /** The change stream is (re)connected or broken: until it is connected, every read goes to the database. */
  reset(connected: boolean): void {
    this.invalidate();
    this.trusted = connected;
  }
}
