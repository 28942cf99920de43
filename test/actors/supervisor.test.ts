// The supervisor: restart types, restart intensity and escalation, ordered start/stop, shutdown timeouts,
// dynamic children and failed starts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Actor, type ReplyTo } from '../../actors/actor.js';
import type { ExitReason, Process } from '../../actors/process.js';
import {
  EscalationError,
  Supervisor,
  TooManyChildrenError,
  type ChildSpec,
  type RestartType,
  type SupervisorEvents,
  type SupervisorSpec,
} from '../../actors/supervisor.js';
import { deferred, exitOf, sleep, waitFor, within } from './helpers.js';

type WorkerMsg = { t: 'ping'; reply: ReplyTo<string> } | { t: 'crash' } | { t: 'finish' } | { t: 'hang'; until: Promise<void>; started: () => void };

type Worker = Actor<null, WorkerMsg>;

/** A child spec whose processes are recorded, so tests can tell restarts apart and drive the current one. */
class TestChild {
  readonly spawned: Worker[] = [];
  readonly log: string[];

  constructor(
    readonly id: string,
    readonly restart: RestartType,
    log: string[] = [],
    readonly shutdownMs = 500,
  ) {
    this.log = log;
  }

  get current(): Worker {
    const w = this.spawned[this.spawned.length - 1];
    assert.ok(w, `${this.id} was never started`);
    return w;
  }

  get spec(): ChildSpec {
    return {
      id: this.id,
      restart: this.restart,
      shutdownMs: this.shutdownMs,
      start: () => {
        const id = this.id;
        const log = this.log;
        log.push(`start ${id}`);
        const w = Actor.spawn<null, WorkerMsg>(
          `${id}#${this.spawned.length + 1}`,
          {
            init: () => null,
            async handle(s, msg, ctx) {
              switch (msg.t) {
                case 'ping':
                  msg.reply(`pong from ${id}`);
                  break;
                case 'crash':
                  throw new Error(`${id} crashed on purpose`);
                case 'finish':
                  ctx.stopAfterThis();
                  break;
                case 'hang':
                  msg.started();
                  await msg.until;
                  break;
              }
              return s;
            },
            terminate: () => void log.push(`stop ${id}`),
          },
          { capacity: 8 },
        );
        this.spawned.push(w);
        return w;
      },
    };
  }

  /** Crashes the current process and waits until it has exited. */
  async crash(): Promise<ExitReason> {
    const w = this.current;
    const exit = exitOf(w);
    assert.equal(w.cast({ t: 'crash' }), 'ok');
    return exit;
  }
}

const spec = (o: Partial<SupervisorSpec> = {}): SupervisorSpec => ({ strategy: 'one_for_one', intensity: 5, periodMs: 10_000, ...o });

function recorder(): { events: Parameters<NonNullable<SupervisorEvents['onEvent']>>[0][]; onEvent: NonNullable<SupervisorEvents['onEvent']> } {
  const events: Parameters<NonNullable<SupervisorEvents['onEvent']>>[0][] = [];
  return { events, onEvent: (e) => void events.push(e) };
}

const ping = (p: Process | undefined): Promise<string> => {
  assert.ok(p instanceof Actor, 'expected an actor');
  return (p as Worker).call<string>((reply) => ({ t: 'ping', reply }), 1000);
};

describe('Supervisor restarts', () => {
  it('restarts a crashing permanent child, and the new process works', async () => {
    const child = new TestChild('perm', 'permanent');
    const rec = recorder();
    const sup = await Supervisor.start('sup', spec(), [child.spec], { onEvent: rec.onEvent });
    try {
      const first = sup.which('perm');
      assert.equal(first, child.current);
      assert.equal(await ping(first), 'pong from perm');
      const reason = await child.crash();
      assert.equal(reason.kind, 'crash');
      await waitFor(() => child.spawned.length === 2, 1000, 'restart');
      const second = sup.which('perm');
      assert.ok(second && second !== first, 'which() should return the new process');
      assert.equal(second, child.current);
      assert.equal(first!.alive, false);
      assert.equal(second.alive, true);
      assert.equal(await ping(second), 'pong from perm');
      assert.deepEqual(
        rec.events.map((e) => [e.kind, e.child, e.reason?.kind]),
        [
          ['exit', 'perm', 'crash'],
          ['restart', 'perm', 'crash'],
        ],
      );
      assert.equal(sup.alive, true);
    } finally {
      await sup.stop();
    }
  });

  it('restarts a permanent child even after a normal exit', async () => {
    const child = new TestChild('perm', 'permanent');
    const sup = await Supervisor.start('sup', spec(), [child.spec]);
    try {
      child.current.cast({ t: 'finish' });
      await waitFor(() => child.spawned.length === 2, 1000, 'restart');
      assert.equal(await ping(sup.which('perm')), 'pong from perm');
    } finally {
      await sup.stop();
    }
  });

  it('does not restart a transient child that exits normally', async () => {
    const child = new TestChild('trans', 'transient');
    const rec = recorder();
    const sup = await Supervisor.start('sup', spec(), [child.spec], { onEvent: rec.onEvent });
    try {
      const exit = exitOf(child.current);
      child.current.cast({ t: 'finish' });
      assert.deepEqual(await exit, { kind: 'normal' });
      await sleep(20);
      assert.equal(child.spawned.length, 1, 'a normally exiting transient child must not be restarted');
      assert.equal(sup.which('trans'), undefined);
      assert.deepEqual(sup.childIds(), []);
      assert.deepEqual(
        rec.events.map((e) => e.kind),
        ['exit'],
      );
    } finally {
      await sup.stop();
    }
  });

  it('restarts a transient child that crashes', async () => {
    const child = new TestChild('trans', 'transient');
    const sup = await Supervisor.start('sup', spec(), [child.spec]);
    try {
      await child.crash();
      await waitFor(() => child.spawned.length === 2, 1000, 'restart');
      assert.equal(sup.which('trans'), child.current);
      assert.equal(await ping(sup.which('trans')), 'pong from trans');
    } finally {
      await sup.stop();
    }
  });

  it('never restarts a temporary child', async () => {
    const crashing = new TestChild('temp-crash', 'temporary');
    const finishing = new TestChild('temp-done', 'temporary');
    const sup = await Supervisor.start('sup', spec(), [crashing.spec, finishing.spec]);
    try {
      const exit = exitOf(finishing.current);
      finishing.current.cast({ t: 'finish' });
      await exit;
      await crashing.crash();
      await sleep(20);
      assert.equal(crashing.spawned.length, 1);
      assert.equal(finishing.spawned.length, 1);
      assert.deepEqual(sup.childIds(), []);
      assert.equal(sup.alive, true);
    } finally {
      await sup.stop();
    }
  });

  it('waits restartDelay before restarting', async () => {
    const child = new TestChild('slow', 'permanent');
    const delays: number[] = [];
    const sup = await Supervisor.start(
      'sup',
      spec({
        restartDelay: (n) => {
          delays.push(n);
          return 40;
        },
      }),
      [child.spec],
    );
    try {
      const t0 = Date.now();
      await child.crash();
      await sleep(10);
      assert.equal(child.spawned.length, 1, 'restarted before the delay');
      await waitFor(() => child.spawned.length === 2, 1000, 'delayed restart');
      assert.ok(Date.now() - t0 >= 35);
      assert.deepEqual(delays, [1]);
    } finally {
      await sup.stop();
    }
  });
});

describe('Supervisor escalation', () => {
  it('past its intensity stops its other children and exits with an EscalationError crash', async () => {
    const log: string[] = [];
    const bad = new TestChild('bad', 'permanent', log);
    const other = new TestChild('other', 'permanent', log);
    const rec = recorder();
    const sup = await Supervisor.start('sup', spec({ intensity: 2, periodMs: 10_000 }), [other.spec, bad.spec], { onEvent: rec.onEvent });
    const supExit = exitOf(sup, 2000);
    const otherExit = exitOf(other.current, 2000);

    await bad.crash();
    await waitFor(() => bad.spawned.length === 2, 1000, 'first restart');
    await bad.crash();
    await waitFor(() => bad.spawned.length === 3, 1000, 'second restart');
    assert.equal(sup.alive, true, 'two restarts are within intensity 2');
    await bad.crash();

    const reason = await supExit;
    assert.equal(reason.kind, 'crash');
    const error = reason.kind === 'crash' ? reason.error : undefined;
    assert.ok(error instanceof EscalationError, `expected EscalationError, got ${String(error)}`);
    assert.equal(error.supervisor, 'sup');
    assert.equal(error.child, 'bad');
    assert.equal(error.restarts, 3);
    assert.equal(bad.spawned.length, 3, 'no restart past the intensity');
    assert.deepEqual(await otherExit, { kind: 'shutdown' });
    assert.equal(other.current.alive, false);
    assert.equal(sup.alive, false);
    assert.ok(log.includes('stop other'));
    assert.deepEqual(rec.events.at(-1)?.kind, 'escalate');
  });

  it('restarts spread over more than periodMs do not escalate', async () => {
    let clock = 0;
    const bad = new TestChild('bad', 'permanent');
    const sup = await Supervisor.start('sup', spec({ intensity: 1, periodMs: 1000 }), [bad.spec], { now: () => clock });
    try {
      for (let i = 1; i <= 4; i++) {
        clock += 1500;
        await bad.crash();
        await waitFor(() => bad.spawned.length === i + 1, 1000, `restart ${i}`);
      }
      assert.equal(sup.alive, true);
      assert.equal(await ping(sup.which('bad')), 'pong from bad');
    } finally {
      await sup.stop();
    }
  });

  it('a parent sees a child supervisor escalation as a crash and restarts it', async () => {
    const bad = new TestChild('bad', 'permanent');
    const inner: Supervisor[] = [];
    const rec = recorder();
    const innerSpec: ChildSpec = {
      id: 'inner',
      restart: 'permanent',
      shutdownMs: 500,
      start: async () => {
        const s = await Supervisor.start('inner', spec({ intensity: 0 }), [bad.spec]);
        inner.push(s);
        return s;
      },
    };
    const parent = await Supervisor.start('parent', spec({ intensity: 3 }), [innerSpec], { onEvent: rec.onEvent });
    try {
      assert.equal(parent.which('inner'), inner[0]);
      const innerExit = exitOf(inner[0]!);
      await bad.crash();
      const innerReason = await innerExit;
      assert.equal(innerReason.kind, 'crash');
      await waitFor(() => inner.length === 2, 1000, 'inner supervisor restart');
      const exitEvent = rec.events.find((e) => e.kind === 'exit' && e.child === 'inner');
      assert.ok(exitEvent, 'parent should report the inner supervisor exit');
      assert.equal(exitEvent.reason?.kind, 'crash');
      assert.ok(exitEvent.reason?.kind === 'crash' && exitEvent.reason.error instanceof EscalationError);
      assert.equal(parent.which('inner'), inner[1]);
      assert.equal(inner[1]!.alive, true);
      assert.equal(await ping(inner[1]!.which('bad')), 'pong from bad');
      assert.equal(parent.alive, true);
    } finally {
      await parent.stop();
    }
    assert.equal(inner[1]!.alive, false);
    assert.equal(bad.current.alive, false);
  });

  it('escalation propagates up when the parent is also past its intensity', async () => {
    const bad = new TestChild('bad', 'permanent');
    const innerSpec: ChildSpec = {
      id: 'inner',
      restart: 'permanent',
      shutdownMs: 500,
      start: () => Supervisor.start('inner', spec({ intensity: 0 }), [bad.spec]),
    };
    const parent = await Supervisor.start('parent', spec({ intensity: 0 }), [innerSpec]);
    const parentExit = exitOf(parent, 2000);
    await bad.crash();
    const reason = await parentExit;
    assert.equal(reason.kind, 'crash');
    const error = reason.kind === 'crash' ? reason.error : undefined;
    assert.ok(error instanceof EscalationError);
    assert.equal(error.supervisor, 'parent');
    assert.equal(error.child, 'inner');
  });
});

describe('Supervisor start and stop', () => {
  it('starts children in order and stops them in reverse order', async () => {
    const log: string[] = [];
    const kids = ['a', 'b', 'c'].map((id) => new TestChild(id, 'permanent', log));
    const sup = await Supervisor.start(
      'sup',
      spec(),
      kids.map((k) => k.spec),
    );
    assert.deepEqual(sup.childIds(), ['a', 'b', 'c']);
    assert.deepEqual(log, ['start a', 'start b', 'start c']);
    const supExit = exitOf(sup);
    await sup.stop();
    assert.deepEqual(log.slice(3), ['stop c', 'stop b', 'stop a']);
    for (const k of kids) assert.equal(k.current.alive, false);
    assert.deepEqual(await supExit, { kind: 'shutdown' });
    assert.equal(sup.alive, false);
    // Children stopped by the supervisor are not restarted.
    await sleep(20);
    for (const k of kids) assert.equal(k.spawned.length, 1);
  });

  it('abandons a child that hangs past its shutdownMs, and stop still resolves', async () => {
    const log: string[] = [];
    const fine = new TestChild('fine', 'permanent', log, 1000);
    const hung = new TestChild('hung', 'permanent', log, 50);
    const sup = await Supervisor.start('sup', spec(), [fine.spec, hung.spec]);
    const gate = deferred();
    try {
      const started = deferred();
      hung.current.cast({ t: 'hang', until: gate.promise, started: () => started.resolve() });
      await within(started.promise, 1000, 'hang start');
      const t0 = Date.now();
      await within(sup.stop(), 1000, 'supervisor stop');
      const elapsed = Date.now() - t0;
      assert.ok(elapsed >= 45, `stop returned after ${elapsed} ms, before the hung child's shutdownMs`);
      assert.ok(elapsed < 900, `stop took ${elapsed} ms`);
      assert.equal(hung.current.alive, false);
      assert.equal(fine.current.alive, false);
      assert.deepEqual(log.slice(2), ['stop hung', 'stop fine']);
    } finally {
      gate.resolve();
    }
  });

  it('a second stop() resolves only once the children have stopped', async () => {
    const log: string[] = [];
    const slow: ChildSpec = {
      id: 'slow',
      restart: 'permanent',
      shutdownMs: 500,
      start: () =>
        Actor.spawn<null, string>(
          'slow',
          {
            init: () => null,
            handle: (s) => s,
            terminate: async () => {
              await sleep(30);
              log.push('slow stopped');
            },
          },
          { capacity: 1 },
        ),
    };
    const sup = await Supervisor.start('sup', spec(), [slow]);
    const child = sup.which('slow')!;
    const exits: ExitReason[] = [];
    sup.onExit((r) => void exits.push(r));
    const first = sup.stop();
    await within(sup.stop(), 1000, 'second stop');
    assert.equal(child.alive, false, 'second stop resolved while a child was still running');
    assert.deepEqual(log, ['slow stopped']);
    await within(first, 1000, 'first stop');
    assert.deepEqual(exits, [{ kind: 'shutdown' }]);
  });

  it('adds and removes dynamic children, bounded by maxChildren', async () => {
    const x = new TestChild('x', 'permanent');
    const y = new TestChild('y', 'permanent');
    const z = new TestChild('z', 'permanent');
    const sup = await Supervisor.start('dyn', spec({ maxChildren: 2 }), []);
    try {
      assert.deepEqual(sup.childIds(), []);
      const px = await sup.startChild(x.spec);
      assert.equal(px, x.current);
      await sup.startChild(y.spec);
      await assert.rejects(sup.startChild(new TestChild('x', 'permanent').spec), /already has a child x/);
      await assert.rejects(sup.startChild(z.spec), (e: unknown) => e instanceof TooManyChildrenError && e.supervisor === 'dyn');
      assert.equal(z.spawned.length, 0, 'a refused child must not be started');
      assert.deepEqual(sup.childIds(), ['x', 'y']);

      const xExit = exitOf(x.current);
      await sup.terminateChild('x');
      assert.deepEqual(await xExit, { kind: 'shutdown' });
      assert.equal(sup.which('x'), undefined);
      await sleep(20);
      assert.equal(x.spawned.length, 1, 'a terminated child must not be restarted');
      assert.deepEqual(sup.childIds(), ['y']);
      await sup.terminateChild('nope'); // unknown ids are ignored

      await sup.startChild(z.spec);
      assert.deepEqual(sup.childIds(), ['y', 'z']);
      assert.equal(await ping(sup.which('z')), 'pong from z');
    } finally {
      await sup.stop();
    }
    await assert.rejects(sup.startChild(x.spec), /stopping/);
  });

  it('a child that fails to start makes start throw and stops the children already started', async () => {
    const log: string[] = [];
    const a = new TestChild('a', 'permanent', log);
    const c = new TestChild('c', 'permanent', log);
    const failure = new Error('b cannot start');
    const b: ChildSpec = {
      id: 'b',
      restart: 'permanent',
      shutdownMs: 100,
      start: () => {
        log.push('start b');
        throw failure;
      },
    };
    await assert.rejects(Supervisor.start('sup', spec(), [a.spec, b, c.spec]), (e: unknown) => e === failure);
    assert.deepEqual(log, ['start a', 'start b', 'stop a']);
    assert.equal(a.current.alive, false);
    assert.deepEqual(await exitOf(a.current), { kind: 'shutdown' });
    assert.equal(c.spawned.length, 0);
    await sleep(20);
    assert.equal(a.spawned.length, 1, 'the stopped child must not be restarted');
  });

  it('an async start that rejects is also a failed start', async () => {
    const a = new TestChild('a', 'permanent');
    const b: ChildSpec = { id: 'b', restart: 'permanent', shutdownMs: 100, start: async () => Promise.reject(new Error('async failure')) };
    await assert.rejects(Supervisor.start('sup', spec(), [a.spec, b]), /async failure/);
    assert.equal(a.current.alive, false);
  });
});
