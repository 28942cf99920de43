// The processing contract as real clients read it: masto.js 7 (v2.media.create polls GET /api/v1/media/:id until
// the url is there, then posts it) and Mastodon.py 1.8 (media_post answers url None from v2; the script fetches
// media() until it is processed, then status_post). Each gets a playable H.264 MP4 from a WebM or an MP3 from WAV.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createRestAPIClient } from 'masto';
import { mastodonPy } from '../support/cli-clients.js';
import { createMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';

describe('video and audio uploads through masto.js and Mastodon.py', () => {
  let s: TestServer;
  let token = '';
  let dir = '';
  const make = (name: string, inputs: string[], args: string[]) => {
    execFileSync('/usr/bin/ffmpeg', ['-nostdin', '-v', 'error', '-y', ...inputs, ...args, path.join(dir, name)]);
    return path.join(dir, name);
  };

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'stoa-clients-media-'));
    s = await startTestServer();
    token = (await createMembers(s, ['mia'])).token['mia']!;
  });
  after(async () => {
    await s?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('masto.js: v2.media.create waits for the WebM to be processed, and the post shows the MP4', async () => {
    const file = make('a.webm', ['-f', 'lavfi', '-i', 'testsrc=duration=2:size=320x240:rate=25'], ['-c:v', 'libvpx', '-b:v', '200k']);
    const masto = createRestAPIClient({ url: s.url, accessToken: token });
    const media = await masto.v2.media.create({ file: new Blob([await readFile(file)], { type: 'video/webm' }), description: 'a test card' });
    assert.equal(media.type, 'video');
    assert.ok(media.url, 'processed before create() returns');
    assert.ok(media.previewUrl);
    assert.equal((await fetch(media.url)).headers.get('content-type'), 'video/mp4');
    const status = await masto.v1.statuses.create({ status: 'a clip', mediaIds: [media.id] });
    assert.equal(status.mediaAttachments[0]!.id, media.id);
    assert.equal(status.mediaAttachments[0]!.meta?.original?.width, 320);
    assert.ok(status.mediaAttachments[0]!.blurhash);
  });

  it('Mastodon.py: media_post answers url None (v2), media() tells when it is done, status_post takes it', async () => {
    const wav = make('b.wav', ['-f', 'lavfi', '-i', 'sine=duration=2'], []);
    const out = (await mastodonPy(
      s.url,
      'mia',
      'member-password-1',
      `
import time
first = m.media_post(os.environ['WAV'], mime_type='audio/wav')
out['first_url'] = first['url']
media = first
for _ in range(600):
    media = m.media(first)
    if media['url'] is not None:
        break
    time.sleep(0.1)
out['type'] = media['type']
out['url'] = media['url']
out['duration'] = media['meta']['original']['duration']
post = m.status_post('a sound', media_ids=[media])
out['posted'] = post['media_attachments'][0]['id'] == first['id']
`,
      { WAV: wav },
    )) as { first_url: string | null; type: string; url: string; duration: number; posted: boolean };
    assert.equal(out.first_url, null);
    assert.equal(out.type, 'audio');
    assert.ok(Math.abs(out.duration - 2) < 0.2, String(out.duration));
    assert.equal(out.posted, true);
    assert.equal((await fetch(out.url)).headers.get('content-type'), 'audio/mpeg');
  });
});
