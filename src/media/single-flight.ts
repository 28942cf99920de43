// One run of a task per key at a time on this node: concurrent callers for the same key share the run under way
// (two first views of a remote file fetch it once, not twice).
export class SingleFlight<T> {
  private readonly running = new Map<string, Promise<T>>();

  run(key: string, task: () => Promise<T>): Promise<T> {
    let p = this.running.get(key);
    if (!p) {
      p = task().finally(() => this.running.delete(key));
      this.running.set(key, p);
    }
    return p;
  }
}
