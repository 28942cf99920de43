// `npm start` compiles only when it must (scripts/build.mjs --if-stale): on a fresh clone (no dist/) it builds, on a
// warm start it runs nothing, and a source saved since the last build is compiled again. Run on a scratch project
// with the repository's script and its real TypeScript compiler, so the repository's own dist/ is never touched.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

describe('npm start builds only what is stale', () => {
  let dir = '';
  const build = (...args: string[]) => {
    const r = spawnSync(process.execPath, ['scripts/build.mjs', ...args], { cwd: dir, encoding: 'utf8' });
    return { status: r.status, compiled: r.stderr.includes('Compiling'), stderr: r.stderr };
  };
  const entry = () => path.join(dir, 'dist/src/cli/stoa.js');
  const source = () => path.join(dir, 'src/cli/stoa.ts');

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'stoa-start-'));
    await mkdir(path.join(dir, 'scripts'));
    await mkdir(path.join(dir, 'src/cli'), { recursive: true });
    await cp(path.join(REPO, 'scripts/build.mjs'), path.join(dir, 'scripts/build.mjs'));
    await symlink(path.join(REPO, 'node_modules'), path.join(dir, 'node_modules'));
    await writeFile(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', strict: true, rootDir: '.', outDir: 'dist', types: [] }, include: ['src'] }),
    );
    await writeFile(source(), 'export const version: string = "one";\n');
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('compiles on a fresh clone, then starts warm without compiling', async () => {
    const first = build('--if-stale');
    assert.equal(first.status, 0, first.stderr);
    assert.equal(first.compiled, true);
    assert.match(await readFile(entry(), 'utf8'), /"one"/);
    const builtAt = (await stat(entry())).mtimeMs;

    const warm = build('--if-stale');
    assert.equal(warm.status, 0, warm.stderr);
    assert.equal(warm.compiled, false, 'a warm start must not run the compiler');
    assert.equal((await stat(entry())).mtimeMs, builtAt);
  });

  it('compiles again when a source is newer than the last build', async () => {
    await writeFile(source(), 'export const version: string = "two";\n');
    const later = new Date(Date.now() + 5_000); // past the stamp, whatever the file system's time granularity
    await utimes(source(), later, later);
    const r = build('--if-stale');
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.compiled, true);
    assert.match(await readFile(entry(), 'utf8'), /"two"/);
  });

  it('refuses to start on a source that does not compile', async () => {
    await writeFile(source(), 'export const version: number = "three";\n');
    const later = new Date(Date.now() + 10_000);
    await utimes(source(), later, later);
    const r = build('--if-stale');
    assert.notEqual(r.status, 0);
    // Still stale: the next start tries again rather than running what the failed build left.
    assert.equal(build('--if-stale').compiled, true);
  });
});
