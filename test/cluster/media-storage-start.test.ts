// Issue 20: a server whose media storage cannot be written does not start (rather than fail on every upload later),
// and says why: a media directory it cannot write, an S3 bucket it cannot reach.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freshDatabaseUrl } from '../support/db.js';
import { freePort } from '../support/server.js';
import { startServerProcess } from '../support/server-process.js';

describe('media storage checked at start', () => {
  let dir: string;
  let db: string;
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'stoa-media-start-'));
    db = await freshDatabaseUrl();
  });
  after(async () => rm(dir, { recursive: true, force: true }));

  const refused = async (env: Record<string, string>): Promise<string> => {
    const started = startServerProcess({ databaseUrl: db, port: await freePort(), env: { STOA_DATA_DIR: path.join(dir, 'data'), ...env } });
    let message = '';
    await assert.rejects(started, (e: Error) => {
      message = e.message;
      return true;
    });
    assert.match(message, /exited with 1 before serving/);
    return message;
  };

  it('a media directory that cannot be written stops the start, naming it', async () => {
    // A path through a regular file: not writable whoever runs the test (root ignores permission bits).
    const blocker = path.join(dir, 'a-file');
    await writeFile(blocker, 'not a directory');
    const mediaDir = path.join(blocker, 'media');
    const out = await refused({ MEDIA_DIR: mediaDir });
    assert.ok(out.includes(`Stoa failed to start: media storage: the directory ${mediaDir} is not writable by this process`), out);
    assert.ok(out.includes('set MEDIA_DIR to a writable directory'), out);
  });

  it('an S3 bucket that cannot be reached stops the start, naming it', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const out = await refused({
      S3_ENABLED: 'true',
      S3_BUCKET: 'no-such-bucket',
      S3_ENDPOINT: closed,
      AWS_ACCESS_KEY_ID: 'key',
      AWS_SECRET_ACCESS_KEY: 'secret',
    });
    assert.ok(out.includes(`Stoa failed to start: media storage: the bucket s3://no-such-bucket at ${closed} cannot be written`), out);
  });
});
