// The delivery actors against an in-memory queue: the per-host actor (claiming, the concurrency bound, settling each
// outcome: delivered, retry with backoff or Retry-After, give-up, drop) on a fake clock, and the scheduler (releasing
// dead nodes' leases, one actor per due host within maxHosts, kicks, due retries, shutdown) on real time.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Actor } from '../../actors/actor.js';
import { spawnDeliveryHost, type DeliveryHostDeps, type DeliveryHostMsg, type DeliveryOutcome, type QueuedDelivery } from '../../actors/delivery-host.js';
import { DeliveryScheduler, type DeliverySchedulerDeps } from '../../actors/delivery-scheduler.js';
import { deferred, exitOf, sleep, waitFor, type Deferred } from './helpers.js';

interface Item extends QueuedDelivery {
  readonly host: string;
}

interface Row {
  item: Item;
  attempts: number;
  dueAt: number;
  leaseUntil: number | null;
  owner: string | null;
  lastError: string | null;
}

/** The delivery table in memory, with the same claim rules as the SQL one: due, not leased, oldest first. */
class FakeQueue {
  readonly rows = new Map<string, Row>();
  readonly claims: { host: string; owner: string; limit: number; leaseMs: number; got: number }[] = [];
  readonly retries: { id: string; delayMs: number; error: string }[] = [];
  readonly releases: (readonly string[])[] = [];
  dueHostCalls = 0;
  /** Makes the next delivered() throw (a database failure while settling). */
  failNextSettle = false;
  private seq = 0;

  constructor(readonly now: () => number) {}

  add(host: string, opts: { giveUpInMs?: number; leasedBy?: string; leaseMs?: number } = {}): string {
    const id = String(++this.seq);
    const item: Item = { id, host, inboxUrl: `https://${host}/inbox`, attempts: 0, giveUpAt: new Date(this.now() + (opts.giveUpInMs ?? 3_600_000)) };
    const leased = opts.leasedBy !== undefined;
    this.rows.set(id, {
      item,
      attempts: 0,
      dueAt: this.now(),
      leaseUntil: leased ? this.now() + (opts.leaseMs ?? 60_000) : null,
      owner: opts.leasedBy ?? null,
      lastError: null,
    });
    return id;
  }

  private free(r: Row): boolean {
    return r.dueAt <= this.now() && r.item.giveUpAt.getTime() > this.now() && (r.leaseUntil === null || r.leaseUntil < this.now());
  }

  async claim(host: string, owner: string, limit: number, leaseMs: number): Promise<Item[]> {
    const got = [...this.rows.values()].filter((r) => r.item.host === host && this.free(r)).slice(0, limit);
    for (const r of got) {
      r.leaseUntil = this.now() + leaseMs;
      r.owner = owner;
      r.attempts++;
    }
    this.claims.push({ host, owner, limit, leaseMs, got: got.length });
    return got.map((r) => ({ ...r.item, attempts: r.attempts }));
  }

  async delivered(id: string): Promise<void> {
    if (this.failNextSettle) {
      this.failNextSettle = false;
      throw new Error('database went away');
    }
    this.rows.delete(id);
  }

  async retryAt(id: string, delayMs: number, error: string): Promise<void> {
    this.retries.push({ id, delayMs, error });
    const r = this.rows.get(id)!;
    r.dueAt = this.now() + delayMs;
    r.leaseUntil = null;
    r.owner = null;
    r.lastError = error;
  }

  async dueHosts(limit: number): Promise<string[]> {
    this.dueHostCalls++;
    return [...new Set([...this.rows.values()].filter((r) => this.free(r)).map((r) => r.item.host))].slice(0, limit);
  }

  async nextDueInMs(): Promise<number | null> {
    if (this.rows.size === 0) return null;
    const at = Math.min(...[...this.rows.values()].map((r) => Math.max(r.dueAt, r.leaseUntil ?? r.dueAt)));
    return Math.max(0, at - this.now());
  }

  /** Like the SQL: rows past their give-up time that nobody holds are deleted unsent. */
  async dropExpired(): Promise<number> {
    let n = 0;
    for (const [id, r] of this.rows) {
      if (r.item.giveUpAt.getTime() <= this.now() && (r.leaseUntil === null || r.leaseUntil < this.now())) {
        this.rows.delete(id);
        n++;
      }
    }
    return n;
  }

  async releaseLeasesExcept(live: readonly string[]): Promise<number> {
    this.releases.push([...live]);
    let n = 0;
    for (const r of this.rows.values()) {
      if (r.leaseUntil !== null && r.leaseUntil > this.now() && !live.includes(r.owner ?? '')) {
        r.leaseUntil = null;
        r.owner = null;
        n++;
      }
    }
    return n;
  }
}

/** A send function whose calls are recorded and answered by the test (or at once, by `answer`). */
class FakeSend {
  readonly calls: { item: Item; at: number; reply: Deferred<DeliveryOutcome> }[] = [];
  inFlight = 0;
  maxInFlight = 0;

  constructor(private readonly answer?: (item: Item) => DeliveryOutcome | Promise<DeliveryOutcome>) {}

  readonly send = async (item: Item): Promise<DeliveryOutcome> => {
    const reply = deferred<DeliveryOutcome>();
    this.calls.push({ item, at: Date.now(), reply });
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      if (this.answer) reply.resolve(await this.answer(item));
      return await reply.promise;
    } finally {
      this.inFlight--;
    }
  };
}

const delivered: DeliveryOutcome = { kind: 'delivered' };

describe('delivery host actor', () => {
  function setup(answer?: (item: Item) => DeliveryOutcome | Promise<DeliveryOutcome>, overrides: Partial<DeliveryHostDeps<Item>> = {}) {
    let clock = 1_000_000;
    const queue = new FakeQueue(() => clock);
    const sender = new FakeSend(answer);
    const gaveUp: { id: string; error: string }[] = [];
    const deps: DeliveryHostDeps<Item> = {
      queue,
      send: sender.send,
      backoff: (attempt) => attempt * 1_000,
      owner: 'node-1',
      concurrency: 2,
      leaseMs: 60_000,
      onGiveUp: (d, error) => gaveUp.push({ id: d.id, error }),
      now: () => clock,
      ...overrides,
    };
    const spawn = (idleMs = 10_000): Actor<null, DeliveryHostMsg> => spawnDeliveryHost('a.example', deps, idleMs);
    return { queue, sender, gaveUp, spawn, advance: (ms: number) => void (clock += ms) };
  }

  it('delivers every due delivery of its own host and removes it from the queue', async () => {
    const t = setup(() => delivered);
    for (let i = 0; i < 5; i++) t.queue.add('a.example');
    const other = t.queue.add('b.example');
    const actor = t.spawn();
    actor.cast({ kind: 'work' });
    await waitFor(() => t.queue.rows.size === 1, 1000, 'a.example drained');
    assert.deepEqual([...t.queue.rows.keys()], [other]);
    assert.equal(t.sender.calls.length, 5);
    assert.ok(t.queue.claims.every((c) => c.host === 'a.example' && c.owner === 'node-1' && c.limit === 2 && c.leaseMs === 60_000));
    await actor.stop(100);
  });

  it('keeps at most `concurrency` sends in flight and claims the next batch when one finishes', async () => {
    const t = setup();
    for (let i = 0; i < 5; i++) t.queue.add('a.example');
    const actor = t.spawn();
    actor.cast({ kind: 'work' });
    for (let answered = 0; answered < 5; answered++) {
      await waitFor(() => t.sender.calls.length > answered, 1000, `send ${answered + 1}`);
      t.sender.calls[answered]!.reply.resolve(delivered);
    }
    await waitFor(() => t.queue.rows.size === 0, 1000, 'queue drained');
    assert.equal(t.sender.maxInFlight, 2);
    await actor.stop(100);
  });

  it('schedules a failed delivery after the backoff for its attempt number and sends it again once due', async () => {
    const t = setup(() => ({ kind: 'retry', error: 'HTTP 503' }));
    const id = t.queue.add('a.example');
    const actor = t.spawn();
    actor.cast({ kind: 'work' });
    await waitFor(() => t.queue.retries.length === 1, 1000, 'first retry');
    assert.deepEqual(t.queue.retries[0], { id, delayMs: 1_000, error: 'HTTP 503' });
    // Not due yet: a kick sends nothing.
    actor.cast({ kind: 'work' });
    await waitFor(() => t.queue.claims.length === 2, 1000, 'second claim');
    assert.equal(t.sender.calls.length, 1);
    t.advance(1_000);
    actor.cast({ kind: 'work' });
    await waitFor(() => t.queue.retries.length === 2, 1000, 'second retry');
    assert.equal(t.sender.calls[1]!.item.attempts, 2);
    assert.equal(t.queue.retries[1]!.delayMs, 2_000, 'the backoff grows with the attempts');
    assert.ok(t.queue.rows.has(id));
    await actor.stop(100);
  });

  it('waits the peer’s Retry-After instead of the backoff', async () => {
    const t = setup(() => ({ kind: 'retry', error: 'HTTP 429', afterMs: 5_000 }));
    t.queue.add('a.example');
    const actor = t.spawn();
    actor.cast({ kind: 'work' });
    await waitFor(() => t.queue.retries.length === 1, 1000, 'retry');
    assert.equal(t.queue.retries[0]!.delayMs, 5_000);
    await actor.stop(100);
  });

  it('gives up instead of retrying when the next attempt would come after the give-up time', async () => {
    const t = setup(() => ({ kind: 'retry', error: 'HTTP 503' }));
    const id = t.queue.add('a.example', { giveUpInMs: 2_500 });
    const actor = t.spawn();
    actor.cast({ kind: 'work' });
    await waitFor(() => t.queue.retries.length === 1, 1000, 'retry within the give-up time');
    t.advance(1_000);
    actor.cast({ kind: 'work' });
    // Attempt 2 would wait 2 s more, past the give-up time 1.5 s away.
    await waitFor(() => t.gaveUp.length === 1, 1000, 'give-up');
    assert.deepEqual(t.gaveUp, [{ id, error: 'HTTP 503' }]);
    assert.equal(t.queue.rows.size, 0);
    assert.equal(t.queue.retries.length, 1);
    await actor.stop(100);
  });

  it('gives up when the backoff policy has no further delay', async () => {
    const t = setup(() => ({ kind: 'retry', error: 'HTTP 502' }), { backoff: () => null });
    t.queue.add('a.example');
    const actor = t.spawn();
    actor.cast({ kind: 'work' });
    await waitFor(() => t.gaveUp.length === 1, 1000, 'give-up');
    assert.equal(t.queue.rows.size, 0);
    assert.equal(t.queue.retries.length, 0);
    await actor.stop(100);
  });

  it('drops a delivery with a permanent failure after one attempt', async () => {
    const t = setup(() => ({ kind: 'drop', error: 'HTTP 410' }));
    const id = t.queue.add('a.example');
    const actor = t.spawn();
    actor.cast({ kind: 'work' });
    await waitFor(() => t.gaveUp.length === 1, 1000, 'drop');
    assert.deepEqual(t.gaveUp, [{ id, error: 'HTTP 410' }]);
    assert.equal(t.queue.rows.size, 0);
    assert.equal(t.queue.retries.length, 0);
    assert.equal(t.sender.calls.length, 1);
    await actor.stop(100);
  });

  it('treats a send that throws as a failure to retry, not a crash', async () => {
    const t = setup(() => {
      throw new Error('socket hang up');
    });
    t.queue.add('a.example');
    const actor = t.spawn();
    actor.cast({ kind: 'work' });
    await waitFor(() => t.queue.retries.length === 1, 1000, 'retry');
    assert.match(t.queue.retries[0]!.error, /socket hang up/);
    assert.equal(actor.alive, true);
    await actor.stop(100);
  });

  it('picks up work queued during a batch through the kick that announced it', async () => {
    const t = setup(undefined, { concurrency: 4 });
    t.queue.add('a.example');
    const actor = t.spawn();
    actor.cast({ kind: 'work' });
    await waitFor(() => t.sender.calls.length === 1, 1000, 'first send');
    t.queue.add('a.example');
    assert.equal(actor.cast({ kind: 'work' }), 'ok');
    assert.equal(actor.cast({ kind: 'work' }), 'full', 'one waiting kick is enough');
    t.sender.calls[0]!.reply.resolve(delivered);
    await waitFor(() => t.sender.calls.length === 2, 1000, 'second send');
    t.sender.calls[1]!.reply.resolve(delivered);
    await waitFor(() => t.queue.rows.size === 0, 1000, 'queue drained');
    await actor.stop(100);
  });

  it('stops itself normally after idleMs without work', async () => {
    const t = setup(() => delivered);
    t.queue.add('a.example');
    const actor = t.spawn(30);
    actor.cast({ kind: 'work' });
    assert.deepEqual(await exitOf(actor, 1000), { kind: 'normal' });
    assert.equal(t.queue.rows.size, 0);
  });
});

describe('delivery scheduler', () => {
  async function start(
    answer: (item: Item) => DeliveryOutcome | Promise<DeliveryOutcome>,
    overrides: Partial<DeliverySchedulerDeps<Item>> = {},
    seed?: (q: FakeQueue) => void,
  ) {
    const queue = new FakeQueue(Date.now);
    seed?.(queue);
    const sender = new FakeSend(answer);
    const errors: unknown[] = [];
    const { supervisor, scheduler } = await DeliveryScheduler.start<Item>({
      queue,
      send: sender.send,
      backoff: () => 50,
      owner: 'me',
      concurrency: 2,
      leaseMs: 60_000,
      liveNodes: async () => ['me', 'other-live'],
      maxHosts: 8,
      hostIdleMs: 10_000,
      onError: (e) => errors.push(e),
      ...overrides,
    });
    return { queue, sender, supervisor, scheduler, errors };
  }

  it('at its first round releases the leases of nodes that are gone, so their deliveries are sent at once', async () => {
    const t = await start(
      () => delivered,
      {},
      (q) => {
        q.add('a.example', { leasedBy: 'dead-node' });
        q.add('b.example', { leasedBy: 'dead-node' });
        q.add('c.example', { leasedBy: 'other-live' });
      },
    );
    try {
      await waitFor(() => t.queue.rows.size === 1, 2000, 'dead leases released and delivered');
      assert.deepEqual(t.queue.releases, [['me', 'other-live']]);
      assert.deepEqual(
        [...t.queue.rows.values()].map((r) => [r.item.host, r.owner]),
        [['c.example', 'other-live']],
      );
      assert.deepEqual(t.sender.calls.map((c) => c.item.host).sort(), ['a.example', 'b.example']);
    } finally {
      await t.supervisor.stop();
    }
  });

  it('does not release leases again on every round', async () => {
    const t = await start(() => delivered);
    try {
      for (let i = 0; i < 4; i++) {
        const before = t.queue.dueHostCalls;
        t.scheduler.poller.kick();
        await waitFor(() => t.queue.dueHostCalls > before, 1000, `round ${i + 2}`);
      }
      assert.equal(t.queue.releases.length, 1);
    } finally {
      await t.supervisor.stop();
    }
  });

  it('runs one host actor per due host and delivers to each', async () => {
    const t = await start(
      () => delivered,
      {},
      (q) => {
        for (const h of ['a.example', 'b.example', 'c.example']) for (let i = 0; i < 3; i++) q.add(h);
      },
    );
    try {
      await waitFor(() => t.queue.rows.size === 0, 2000, 'all delivered');
      assert.deepEqual(t.supervisor.childIds().sort(), ['host:a.example', 'host:b.example', 'host:c.example', 'scheduler']);
      assert.equal(t.sender.calls.length, 9);
      assert.deepEqual(t.errors, [], 'no round failed');
    } finally {
      await t.supervisor.stop();
    }
  });

  it('never runs more host actors than maxHosts; other hosts wait for a free slot', async () => {
    const active = new Set<string>();
    let maxActive = 0;
    const t = await start(
      async (item) => {
        active.add(item.host);
        maxActive = Math.max(maxActive, active.size);
        await sleep(20);
        active.delete(item.host);
        return delivered;
      },
      { maxHosts: 1, hostIdleMs: 20 },
      (q) => {
        for (const h of ['a.example', 'b.example', 'c.example']) q.add(h);
      },
    );
    try {
      let maxChildren = 0;
      await waitFor(
        () => {
          maxChildren = Math.max(maxChildren, t.supervisor.childIds().length);
          return t.queue.rows.size === 0;
        },
        3000,
        'all delivered',
      );
      assert.equal(maxActive, 1);
      assert.equal(maxChildren, 2, 'the scheduler and one host actor');
      assert.equal(t.sender.calls.length, 3);
    } finally {
      await t.supervisor.stop();
    }
  });

  it('a kick wakes the host at once instead of waiting for the next round', async () => {
    const t = await start(() => delivered);
    try {
      await waitFor(() => t.queue.dueHostCalls >= 1, 1000, 'first round');
      await sleep(20); // let the round finish: it found no work, so the poller sleeps its longest
      // The queue was empty: the next round is up to maxSleepMs (1 s) away.
      t.queue.add('a.example');
      const kicked = Date.now();
      t.scheduler.kick(['a.example']);
      await waitFor(() => t.queue.rows.size === 0, 1000, 'delivered');
      assert.ok(Date.now() - kicked < 500, `delivered ${Date.now() - kicked} ms after the kick`);
      assert.equal(t.queue.dueHostCalls, 1, 'without another round');
    } finally {
      await t.supervisor.stop();
    }
  });

  it('sends a retried delivery again when it falls due, without a kick', async () => {
    let n = 0;
    const t = await start(
      () => (++n === 1 ? { kind: 'retry', error: 'HTTP 503' } : delivered),
      {},
      (q) => void q.add('a.example'),
    );
    try {
      await waitFor(() => t.queue.rows.size === 0, 2000, 'delivered on the second attempt');
      assert.equal(t.sender.calls.length, 2);
      assert.equal(t.sender.calls[1]!.item.attempts, 2);
      assert.ok(t.sender.calls[1]!.at - t.sender.calls[0]!.at >= 50, 'not before the backoff');
    } finally {
      await t.supervisor.stop();
    }
  });

  it('sends a delivery again after its lease expires when settling it failed', async () => {
    const t = await start(
      () => delivered,
      { leaseMs: 100 },
      (q) => {
        q.add('a.example');
        q.failNextSettle = true;
      },
    );
    try {
      await waitFor(() => t.queue.rows.size === 0, 3000, 'delivered after the lease expired');
      assert.equal(t.sender.calls.length, 2);
      assert.ok(t.sender.calls[1]!.at - t.sender.calls[0]!.at >= 100, 'not before the lease ran out');
    } finally {
      await t.supervisor.stop();
    }
  });

  it('stopping the delivery supervisor stops the scheduler and every host actor; a later kick sends nothing', async () => {
    const t = await start(
      () => delivered,
      {},
      (q) => {
        q.add('a.example');
        q.add('b.example');
      },
    );
    await waitFor(() => t.queue.rows.size === 0, 2000, 'delivered');
    const hosts = ['host:a.example', 'host:b.example'].map((id) => t.supervisor.which(id)!);
    await t.supervisor.stop();
    assert.equal(t.scheduler.poller.alive, false);
    assert.ok(hosts.every((h) => !h.alive));
    // A kick after the stop (an inbox job finishing during shutdown) must not reject unhandled: the test runner
    // would fail this test on it, as Node would end the process.
    t.queue.add('a.example');
    t.scheduler.kick(['a.example']);
    t.scheduler.poller.kick();
    await sleep(50);
    assert.equal(t.sender.calls.length, 2, 'nothing sent after the stop');
    assert.equal(t.queue.rows.size, 1, 'the new delivery stays queued for the next start');
  });
});
