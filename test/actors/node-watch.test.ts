// The node watch gives back a gone node's leases, but not those of a node whose listener only blinked: a node missing
// for less than the grace (a listener reconnecting within its backoff) keeps its work.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NodeWatch } from '../../actors/node-watch.js';
import { eventually } from '../support/wait.js';

function watch(graceMs: number) {
  let live = ['a', 'b'];
  const releases: { kept: string[]; gone: readonly string[] }[] = [];
  const w = new NodeWatch<string[]>({
    liveNodes: async () => [...live],
    release: async (kept) => [...kept].sort(),
    onReleased: (kept, gone) => releases.push({ kept, gone }),
    everyMs: 20,
    graceMs,
  });
  return { w, releases, setLive: (l: string[]) => (live = l) };
}

describe('node watch', () => {
  it('a node missing for less than the grace keeps its leases; one missing past it loses them', async () => {
    const { w, releases, setLive } = watch(400);
    try {
      await eventually(() => assert.ok(releases.length >= 1, 'the first round releases (a node may have died unseen)'));
      const first = releases.length;
      // b's listener blinks: gone for ~100 ms, then back.
      setLive(['a']);
      await new Promise((r) => setTimeout(r, 100));
      setLive(['a', 'b']);
      await new Promise((r) => setTimeout(r, 500));
      assert.equal(releases.length, first, 'no release for a blink');
      // b dies: released once the grace has passed, with b no longer among those kept.
      const diedAt = Date.now();
      setLive(['a']);
      await eventually(() => assert.ok(releases.length > first));
      const r = releases.at(-1)!;
      assert.deepEqual(r.gone, ['b']);
      assert.deepEqual(r.kept, ['a']);
      assert.ok(Date.now() - diedAt >= 400, 'not before the grace');
    } finally {
      await w.poller.stop(1_000);
    }
  });
});
