// The actor primitive: serial message handling, call/cast, bounded mailboxes, crashes, passivation and shutdown.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Actor, ActorStoppedError, CallTimeoutError, MailboxFullError, type ReplyTo } from '../../actors/actor.js';
import type { ExitReason } from '../../actors/process.js';
import { deferred, exitOf, sleep, waitFor, within } from './helpers.js';

describe('Actor message handling', () => {
  it('handles messages one at a time, in order, even with an async handler', async () => {
    type Msg = { t: 'work'; n: number; ms: number } | { t: 'log'; reply: ReplyTo<string[]> };
    let inFlight = 0;
    let maxInFlight = 0;
    const actor = Actor.spawn<string[], Msg>(
      'serial',
      {
        init: () => [],
        async handle(log, msg) {
          if (msg.t === 'log') {
            msg.reply([...log]);
            return log;
          }
          inFlight++;
          maxInFlight = Math.max(maxInFlight, inFlight);
          log.push(`start ${msg.n}`);
          // Earlier messages wait longer: if handling interleaved, later ones would finish first.
          await sleep(msg.ms);
          await Promise.resolve();
          log.push(`end ${msg.n}`);
          inFlight--;
          return log;
        },
      },
      { capacity: 16 },
    );
    try {
      for (let n = 0; n < 5; n++) assert.equal(actor.cast({ t: 'work', n, ms: 10 - 2 * n }), 'ok');
      const log = await actor.call<string[]>((reply) => ({ t: 'log', reply }), 1000);
      const expected = [0, 1, 2, 3, 4].flatMap((n) => [`start ${n}`, `end ${n}`]);
      assert.deepEqual(log, expected);
      assert.equal(maxInFlight, 1);
    } finally {
      await actor.stop(1000);
    }
  });

  it('call returns the reply and the state carries over between messages', async () => {
    type Msg = { t: 'add'; n: number; reply: ReplyTo<number> };
    const actor = Actor.spawn<number, Msg>(
      'counter',
      {
        init: () => 0,
        handle(sum, msg) {
          const next = sum + msg.n;
          msg.reply(next);
          return next;
        },
      },
      { capacity: 4 },
    );
    try {
      assert.equal(await actor.call<number>((reply) => ({ t: 'add', n: 5, reply }), 1000), 5);
      assert.equal(await actor.call<number>((reply) => ({ t: 'add', n: 7, reply }), 1000), 12);
    } finally {
      await actor.stop(1000);
    }
  });

  it('a call that is never replied to rejects with CallTimeoutError after its timeout; the actor lives on', async () => {
    type Msg = { t: 'ignore'; reply: ReplyTo<string> } | { t: 'ping'; reply: ReplyTo<string> };
    let lateReply: ReplyTo<string> | null = null;
    const actor = Actor.spawn<null, Msg>(
      'deaf',
      {
        init: () => null,
        handle(s, msg) {
          if (msg.t === 'ignore') lateReply = msg.reply;
          else msg.reply('pong');
          return s;
        },
      },
      { capacity: 4 },
    );
    try {
      const started = Date.now();
      const err = await within(
        actor
          .call<string>((reply) => ({ t: 'ignore', reply }), 30)
          .then(
            () => assert.fail('call should not resolve'),
            (e: unknown) => e,
          ),
        1000,
        'timed-out call',
      );
      const elapsed = Date.now() - started;
      assert.ok(err instanceof CallTimeoutError, `expected CallTimeoutError, got ${String(err)}`);
      assert.equal(err.timeoutMs, 30);
      assert.equal(err.actor, 'deaf');
      assert.ok(elapsed >= 25, `rejected too early (${elapsed} ms)`);
      // Replying after the caller gave up is harmless, and the actor still works.
      assert.ok(lateReply);
      assert.doesNotThrow(() => lateReply!('too late'));
      assert.equal(actor.alive, true);
      assert.equal(await actor.call<string>((reply) => ({ t: 'ping', reply }), 1000), 'pong');
    } finally {
      await actor.stop(1000);
    }
  });

  it('a full mailbox makes cast return "full" and call reject with MailboxFullError', async () => {
    type Msg = { t: 'block' } | { t: 'item'; n: number } | { t: 'ask'; reply: ReplyTo<number[]> };
    const gate = deferred();
    const inHandler = deferred();
    const actor = Actor.spawn<number[], Msg>(
      'narrow',
      {
        init: () => [],
        async handle(seen, msg) {
          if (msg.t === 'block') {
            inHandler.resolve();
            await gate.promise;
          } else if (msg.t === 'item') seen.push(msg.n);
          else msg.reply([...seen]);
          return seen;
        },
      },
      { capacity: 2 },
    );
    try {
      assert.equal(actor.cast({ t: 'block' }), 'ok');
      await within(inHandler.promise, 1000, 'blocking handler');
      // The blocking message is in hand; the mailbox (capacity 2) is now empty.
      assert.equal(actor.cast({ t: 'item', n: 1 }), 'ok');
      assert.equal(actor.cast({ t: 'item', n: 2 }), 'ok');
      assert.equal(actor.queued, 2);
      assert.equal(actor.cast({ t: 'item', n: 3 }), 'full');
      await assert.rejects(
        actor.call<number[]>((reply) => ({ t: 'ask', reply }), 1000),
        (e: unknown) => {
          assert.ok(e instanceof MailboxFullError);
          assert.equal(e.actor, 'narrow');
          return true;
        },
      );
      assert.equal(actor.queued, 2);
      gate.resolve();
      await waitFor(() => actor.queued === 0, 1000, 'mailbox drained');
      // Once drained, the refused message was never delivered and new messages are accepted.
      assert.deepEqual(await actor.call<number[]>((reply) => ({ t: 'ask', reply }), 1000), [1, 2]);
    } finally {
      gate.resolve();
      await actor.stop(1000);
    }
  });
});

describe('Actor lifecycle', () => {
  it('a throwing handler crashes the actor; pending calls reject with ActorStoppedError', async () => {
    type Msg = { t: 'boom'; reply: ReplyTo<string> } | { t: 'ping'; reply: ReplyTo<string> };
    const boom = new Error('handler blew up');
    const terminated: ExitReason[] = [];
    const actor = Actor.spawn<null, Msg>(
      'crashy',
      {
        init: () => null,
        async handle(s, msg) {
          if (msg.t === 'boom') {
            await sleep(5);
            throw boom;
          }
          msg.reply('pong');
          return s;
        },
        terminate: (_s, reason) => void terminated.push(reason),
      },
      { capacity: 4 },
    );
    const exit = exitOf(actor);
    const inHand = actor.call<string>((reply) => ({ t: 'boom', reply }), 1000);
    const queued = actor.call<string>((reply) => ({ t: 'ping', reply }), 1000);
    await assert.rejects(inHand, ActorStoppedError);
    await assert.rejects(queued, ActorStoppedError);
    const reason = await exit;
    assert.equal(reason.kind, 'crash');
    assert.equal(reason.kind === 'crash' && reason.error, boom);
    assert.equal(actor.alive, false);
    assert.deepEqual(terminated, [reason]);
    // A dead actor refuses further messages explicitly.
    assert.equal(actor.cast({ t: 'ping', reply: () => undefined }), 'stopped');
    await assert.rejects(
      actor.call<string>((reply) => ({ t: 'ping', reply }), 1000),
      ActorStoppedError,
    );
  });

  it('an init that throws is a crash', async () => {
    const actor = Actor.spawn<null, string>(
      'bad-init',
      {
        init: () => {
          throw new Error('no state');
        },
        handle: (s) => s,
      },
      { capacity: 1 },
    );
    const reason = await exitOf(actor);
    assert.equal(reason.kind, 'crash');
    assert.match(String(reason.kind === 'crash' && (reason.error as Error).message), /no state/);
  });

  it('passivates: with idleMs 30 it exits normally after idling', async () => {
    const terminated: ExitReason[] = [];
    let handled = 0;
    const started = Date.now();
    const actor = Actor.spawn<null, string>(
      'idler',
      {
        init: () => null,
        handle: (s) => {
          handled++;
          return s;
        },
        terminate: (_s, reason) => void terminated.push(reason),
      },
      { capacity: 4, idleMs: 30 },
    );
    assert.equal(actor.cast('hello'), 'ok');
    const reason = await exitOf(actor, 1000);
    const elapsed = Date.now() - started;
    assert.deepEqual(reason, { kind: 'normal' });
    assert.equal(handled, 1);
    assert.ok(elapsed >= 25, `passivated too early (${elapsed} ms)`);
    assert.equal(actor.alive, false);
    assert.deepEqual(terminated, [{ kind: 'normal' }]);
  });

  it('messages keep a busy actor from passivating', async () => {
    const actor = Actor.spawn<null, string>('busy', { init: () => null, handle: (s) => s }, { capacity: 4, idleMs: 100 });
    try {
      const until = Date.now() + 180;
      while (Date.now() < until) {
        assert.equal(actor.cast('tick'), 'ok');
        await sleep(10);
      }
      assert.equal(actor.alive, true, 'actor passivated although it kept receiving messages');
      assert.deepEqual(await exitOf(actor, 1000), { kind: 'normal' });
    } finally {
      await actor.stop(1000);
    }
  });

  it('stopAfterThis ends the actor normally once the current message is handled', async () => {
    const handled: string[] = [];
    const actor = Actor.spawn<null, string>(
      'one-shot',
      {
        init: () => null,
        handle(s, msg, ctx) {
          handled.push(msg);
          if (msg === 'last') ctx.stopAfterThis();
          return s;
        },
      },
      { capacity: 4 },
    );
    actor.cast('first');
    actor.cast('last');
    actor.cast('never');
    assert.deepEqual(await exitOf(actor), { kind: 'normal' });
    assert.deepEqual(handled, ['first', 'last']);
  });

  it('stop() waits for the message in hand, exits with shutdown and calls terminate', async () => {
    type Msg = { t: 'slow'; n: number };
    const gate = deferred();
    const inHandler = deferred();
    const events: string[] = [];
    const terminated: { state: number[]; reason: ExitReason }[] = [];
    const actor = Actor.spawn<number[], Msg>(
      'graceful',
      {
        init: () => [],
        async handle(done, msg) {
          inHandler.resolve();
          await gate.promise;
          events.push(`handled ${msg.n}`);
          return [...done, msg.n];
        },
        terminate(state, reason) {
          events.push('terminate');
          terminated.push({ state, reason });
        },
      },
      { capacity: 4 },
    );
    const exit = exitOf(actor, 2000);
    actor.cast({ t: 'slow', n: 1 });
    await within(inHandler.promise, 1000, 'handler start');
    actor.cast({ t: 'slow', n: 2 }); // queued behind the one in hand: dropped by the stop
    let stopped = false;
    const stopping = actor.stop(2000).then(() => void (stopped = true));
    assert.equal(actor.cast({ t: 'slow', n: 3 }), 'stopped');
    await sleep(20);
    assert.equal(stopped, false, 'stop resolved before the message in hand finished');
    assert.equal(actor.alive, true);
    gate.resolve();
    await within(stopping, 1000, 'stop');
    assert.equal(actor.alive, false);
    assert.deepEqual(await exit, { kind: 'shutdown' });
    assert.deepEqual(events, ['handled 1', 'terminate']);
    assert.deepEqual(terminated, [{ state: [1], reason: { kind: 'shutdown' } }]);
  });

  it('overlapping stops (and a stop during passivation) run terminate once and resolve after the exit', async () => {
    let terminations = 0;
    const slowTerminate = async (): Promise<void> => {
      terminations++;
      await sleep(20);
    };
    const actor = Actor.spawn<null, string>('twice', { init: () => null, handle: (s) => s, terminate: slowTerminate }, { capacity: 1 });
    await sleep(1);
    const exits: ExitReason[] = [];
    actor.onExit((r) => void exits.push(r));
    const aliveWhenResolved: boolean[] = [];
    await within(Promise.all([actor.stop(100), actor.stop(100)].map((p) => p.then(() => void aliveWhenResolved.push(actor.alive)))), 1000, 'both stops');
    assert.equal(terminations, 1, 'terminate must run exactly once');
    assert.deepEqual(aliveWhenResolved, [false, false]);
    assert.deepEqual(exits, [{ kind: 'shutdown' }]);

    terminations = 0;
    const idler = Actor.spawn<null, string>('idle-then-stop', { init: () => null, handle: (s) => s, terminate: slowTerminate }, { capacity: 1, idleMs: 10 });
    await sleep(20); // passivation has begun; terminate is still running
    await within(idler.stop(100), 1000, 'stop during passivation');
    assert.equal(idler.alive, false, 'stop resolved before the actor exited');
    assert.equal(terminations, 1, 'terminate must run exactly once');
    assert.deepEqual(await exitOf(idler), { kind: 'normal' });
  });

  it('stop() abandons a hung handler after its timeout', async () => {
    const gate = deferred();
    const inHandler = deferred();
    const actor = Actor.spawn<null, string>(
      'hung',
      {
        init: () => null,
        async handle(s) {
          inHandler.resolve();
          await gate.promise;
          return s;
        },
      },
      { capacity: 2 },
    );
    try {
      actor.cast('hang');
      await within(inHandler.promise, 1000, 'handler start');
      const started = Date.now();
      await within(actor.stop(40), 1000, 'stop');
      const elapsed = Date.now() - started;
      assert.ok(elapsed >= 35, `stop returned after ${elapsed} ms, before the timeout`);
      assert.equal(actor.alive, false);
      assert.deepEqual(await exitOf(actor), { kind: 'shutdown' });
    } finally {
      gate.resolve();
    }
  });
});
