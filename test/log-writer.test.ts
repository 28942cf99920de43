// The log destination: every line arrives, in order, in few writes; a destination that cannot keep up loses lines
// (counted and reported), never memory; pending lines are written at exit.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { LineWriter } from '../src/log-writer.js';

const tmpFile = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'stoa-log-')), 'out.log');
const flushed = (w: LineWriter) => new Promise<void>((resolve) => w.flush(() => resolve()));

describe('LineWriter', () => {
  it('writes every line in order, across several event-loop turns', async () => {
    const file = tmpFile();
    const fd = fs.openSync(file, 'w');
    const w = new LineWriter(fd);
    for (let turn = 0; turn < 20; turn++) {
      for (let i = 0; i < 100; i++) w.write(`${JSON.stringify({ n: turn * 100 + i })}\n`);
      await new Promise((r) => setImmediate(r));
    }
    await flushed(w);
    fs.closeSync(fd);
    const lines = fs
      .readFileSync(file, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l).n as number);
    assert.deepEqual(
      lines,
      Array.from({ length: 2000 }, (_, i) => i),
    );
  });

  it('drops lines past its bound and reports how many', async () => {
    const file = tmpFile();
    const fd = fs.openSync(file, 'w');
    const w = new LineWriter(fd, 100);
    const accepted = Array.from({ length: 10 }, (_, i) => w.write(`line ${i} padding padding\n`));
    assert.deepEqual(accepted.map(Boolean), [true, true, true, true, false, false, false, false, false, false]);
    await flushed(w);
    w.write('after\n');
    await flushed(w);
    fs.closeSync(fd);
    const out = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);
    assert.equal(out.length, 6);
    assert.equal(JSON.parse(out[4]!).dropped, 6);
    assert.equal(out[5], 'after');
  });

  it('writes what is pending when the process exits', () => {
    const file = tmpFile();
    const module = fileURLToPath(new URL('../src/log-writer.js', import.meta.url));
    const script = `import fs from 'node:fs'; import { LineWriter } from ${JSON.stringify(module)};
      const w = new LineWriter(fs.openSync(${JSON.stringify(file)}, 'w'));
      for (let i = 0; i < 500; i++) w.write('line ' + i + '\\n');
      process.exit(0);`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script]);
    assert.equal(r.status, 0, r.stderr.toString());
    const lines = fs.readFileSync(file, 'utf8').trimEnd().split('\n');
    assert.equal(lines.length, 500);
    assert.equal(lines[499], 'line 499');
  });
});
