// Video, animated GIFs and audio are processed after the upload answers (Mastodon's contract): POST /api/v2/media
// answers 202 with url null, GET /api/v1/media/:id 206 until the file is ready and 200 after, a status naming an
// unprocessed upload is refused with Mastodon's words. WebM and QuickTime become H.264/AAC MP4, an H.264 MP4 is
// kept byte for byte, an animated GIF becomes a silent MP4 (gifv), audio becomes MP3 or is kept when it is MP3;
// the served files are probed as a client's player would read them. Hostile files end in 422.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { api, type Json } from '../support/api.js';
import { upload } from '../support/media.js';
import { createMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

let dir = '';

/** A file made with ffmpeg from lavfi sources (`args` are everything between the inputs and the output). */
function make(name: string, inputs: string[], args: string[]): Promise<Buffer> {
  const out = path.join(dir, name);
  execFileSync('/usr/bin/ffmpeg', ['-nostdin', '-v', 'error', '-y', ...inputs, ...args, out]);
  return readFile(out);
}
const VIDEO = ['-f', 'lavfi', '-i', 'testsrc=duration=2:size=320x240:rate=25'];
const SOUND = ['-f', 'lavfi', '-i', 'sine=duration=2'];

/** ffprobe's streams of a file (what a player sees). */
async function streams(data: Buffer): Promise<{ codec_type: string; codec_name: string }[]> {
  const f = path.join(dir, `probe-${Math.random().toString(36).slice(2)}`);
  await writeFile(f, data);
  const out = execFileSync('/usr/bin/ffprobe', ['-v', 'error', '-print_format', 'json', '-show_streams', f]).toString();
  return (JSON.parse(out) as { streams: { codec_type: string; codec_name: string }[] }).streams;
}

describe('video and audio processing', () => {
  let s: TestServer;
  let token = '';

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'stoa-video-'));
    s = await startTestServer();
    token = (await createMembers(s, ['vera'])).token['vera']!;
  });
  after(async () => {
    await s?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  /** Uploads through v2 (202, url null), then waits for GET to answer 200; every answer before is 206. */
  async function processed(data: Buffer): Promise<Json> {
    const r = await upload(s.url, token, data, {}, 'application/octet-stream');
    assert.equal(r.status, 202, JSON.stringify(r.body));
    assert.equal(r.body.url, null);
    let done: Json;
    await eventually(async () => {
      const g = await api(s.url, token, 'GET', `/api/v1/media/${r.body.id}`);
      assert.ok(g.status === 200 || g.status === 206, `${g.status} ${g.text}`);
      if (g.status === 206) assert.equal(g.body.url, null);
      assert.equal(g.status, 200);
      done = g.body;
    }, 60_000);
    return done;
  }
  const served = async (url: string) => {
    const r = await fetch(url);
    assert.equal(r.status, 200);
    return { type: r.headers.get('content-type'), data: Buffer.from(await r.arrayBuffer()) };
  };

  it('makes a WebM an H.264/AAC MP4 with a poster, blurhash and Mastodon meta', async () => {
    const webm = await make('a.webm', [...VIDEO, ...SOUND], ['-c:v', 'libvpx', '-b:v', '200k', '-c:a', 'libvorbis', '-shortest']);
    const m = await processed(webm);
    assert.equal(m.type, 'video');
    const f = await served(m.url);
    assert.equal(f.type, 'video/mp4');
    assert.deepEqual((await streams(f.data)).map((x) => `${x.codec_type}:${x.codec_name}`).sort(), ['audio:aac', 'video:h264']);
    assert.equal(m.meta.original.width, 320);
    assert.equal(m.meta.original.height, 240);
    assert.equal(m.meta.original.frame_rate, '25/1');
    assert.ok(Math.abs(m.meta.original.duration - 2) < 0.2, String(m.meta.original.duration));
    assert.ok(m.meta.original.bitrate > 0);
    assert.match(m.meta.length, /^0:00:0[12]\.\d\d$/);
    assert.equal(m.meta.fps, 25);
    assert.deepEqual(m.meta.small, { width: 320, height: 240, size: '320x240', aspect: 320 / 240 });
    assert.match(m.blurhash, /^[0-9A-Za-z#$%*+,\-.:;=?@[\]^_{|}~]{36}$/);
    const poster = await served(m.preview_url);
    assert.equal(poster.type, 'image/jpeg');
    assert.deepEqual(poster.data.subarray(0, 3), Buffer.from([0xff, 0xd8, 0xff]));
  });

  it('makes a QuickTime file an MP4, and keeps an H.264/AAC MP4 byte for byte', async () => {
    const mov = await make('b.mov', [...VIDEO, ...SOUND], ['-c:v', 'mjpeg', '-c:a', 'pcm_s16le', '-shortest']);
    const m = await processed(mov);
    const f = await served(m.url);
    assert.deepEqual((await streams(f.data)).map((x) => `${x.codec_type}:${x.codec_name}`).sort(), ['audio:aac', 'video:h264']);

    const mp4 = await make('c.mp4', [...VIDEO, ...SOUND], ['-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest']);
    const kept = await processed(mp4);
    assert.ok((await served(kept.url)).data.equals(mp4), 'kept as sent');
  });

  it('makes an animated GIF a silent MP4 (gifv); a still GIF stays an image', async () => {
    const gif = await make('d.gif', ['-f', 'lavfi', '-i', 'testsrc=duration=1:size=160x120:rate=10'], []);
    const m = await processed(gif);
    assert.equal(m.type, 'gifv');
    const f = await served(m.url);
    assert.equal(f.type, 'video/mp4');
    assert.deepEqual(
      (await streams(f.data)).map((x) => `${x.codec_type}:${x.codec_name}`),
      ['video:h264'],
    );

    const still = await make('e.gif', ['-f', 'lavfi', '-i', 'testsrc=size=160x120'], ['-frames:v', '1']);
    const r = await upload(s.url, token, still, {}, 'image/gif');
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.type, 'image');
  });

  it('makes OGG audio an MP3 and keeps an MP3, each with its duration', async () => {
    const ogg = await make('f.ogg', SOUND, ['-c:a', 'libvorbis']);
    const a = await processed(ogg);
    assert.equal(a.type, 'audio');
    const f = await served(a.url);
    assert.equal(f.type, 'audio/mpeg');
    assert.deepEqual(
      (await streams(f.data)).map((x) => `${x.codec_type}:${x.codec_name}`),
      ['audio:mp3'],
    );
    assert.ok(Math.abs(a.meta.original.duration - 2) < 0.2, String(a.meta.original.duration));
    assert.equal(a.preview_url === null || typeof a.preview_url === 'string', true);

    const mp3 = await make('g.mp3', SOUND, ['-c:a', 'libmp3lame']);
    const b = await processed(mp3);
    assert.ok((await served(b.url)).data.equals(mp3), 'kept as sent');
    assert.ok(Math.abs(b.meta.original.duration - 2) < 0.2);
  });

  it('refuses a status naming an upload not processed yet, with Mastodon words, and takes it once processed', async () => {
    const mp4 = await make('h.mp4', VIDEO, ['-c:v', 'libx264', '-pix_fmt', 'yuv420p']);
    const r = await upload(s.url, token, mp4, {}, 'video/mp4');
    assert.equal(r.status, 202);
    // Held as if another node were processing it (unless this node's processor has taken it already), the post is
    // refused; given back to the queue, and the processor kicked by another upload, it is processed and taken.
    const db = new pg.Pool({ connectionString: s.databaseUrl, max: 1 });
    try {
      const held = await db.query(
        `UPDATE media_attachments SET processing = 'running', lease_owner = 'elsewhere', lease_until = now() + interval '1 hour'
         WHERE id = $1 AND processing = 'queued'`,
        [r.body.id],
      );
      if (held.rowCount === 1) {
        const p = await api(s.url, token, 'POST', '/api/v1/statuses', { status: 'too soon', media_ids: [r.body.id] });
        assert.equal(p.status, 422);
        assert.equal(p.body.error, 'Cannot attach files that have not finished processing. Try again in a moment!');
        await db.query(`UPDATE media_attachments SET processing = 'queued', lease_owner = NULL, lease_until = NULL WHERE id = $1`, [r.body.id]);
        assert.equal((await upload(s.url, token, mp4, {}, 'video/mp4')).status, 202);
      }
    } finally {
      await db.end();
    }
    await eventually(async () => assert.equal((await api(s.url, token, 'GET', `/api/v1/media/${r.body.id}`)).status, 200), 60_000);
    const ok = await api(s.url, token, 'POST', '/api/v1/statuses', { status: 'now', media_ids: [r.body.id] });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.body.media_attachments[0].type, 'video');
    assert.ok(ok.body.media_attachments[0].url);
  });

  it('refuses an edit adding an upload another node is still processing; deleting a video removes its file and poster', async () => {
    const me = (await api(s.url, token, 'GET', '/api/v1/accounts/verify_credentials')).body;
    const db = new pg.Pool({ connectionString: s.databaseUrl, max: 1 });
    try {
      // A row as another node's processor holds it (a live lease): nobody here takes it.
      const held = (
        await db.query<{ id: string }>(
          `INSERT INTO media_attachments (account_id, type, content_type, processing, lease_owner, lease_until, attempts)
           VALUES ($1, 'video', 'video/webm', 'running', 'elsewhere', now() + interval '1 hour', 1) RETURNING id::text`,
          [me.id],
        )
      ).rows[0]!.id;
      assert.equal((await api(s.url, token, 'GET', `/api/v1/media/${held}`)).status, 206);
      const described = await api(s.url, token, 'PUT', `/api/v1/media/${held}`, { description: 'a clip' });
      assert.equal(described.status, 206, 'described while processing: still 206, as Mastodon');
      assert.equal(described.body.description, 'a clip');
      const post = await api(s.url, token, 'POST', '/api/v1/statuses', { status: 'words first' });
      const edit = await api(s.url, token, 'PUT', `/api/v1/statuses/${post.body.id}`, { status: 'words first', media_ids: [held] });
      assert.equal(edit.status, 422);
      assert.equal(edit.body.error, 'Cannot attach files that have not finished processing. Try again in a moment!');
      const scheduled = await api(s.url, token, 'POST', '/api/v1/statuses', {
        status: 'later',
        media_ids: [held],
        scheduled_at: new Date(Date.now() + 3600_000).toISOString(),
      });
      assert.equal(scheduled.status, 422);
      assert.equal((await api(s.url, token, 'DELETE', `/api/v1/media/${held}`)).status, 200);
    } finally {
      await db.end();
    }
    const mov = await make('k.mov', VIDEO, ['-c:v', 'mjpeg']);
    const m = await processed(mov);
    assert.equal((await fetch(m.preview_url)).status, 200);
    assert.equal((await api(s.url, token, 'DELETE', `/api/v1/media/${m.id}`)).status, 200);
    assert.equal((await fetch(m.url)).status, 404);
    assert.equal((await fetch(m.preview_url)).status, 404);
  });

  it('makes FLAC and WAV audio MP3', async () => {
    for (const [name, args] of [
      ['l.flac', ['-c:a', 'flac']],
      ['m.wav', []],
    ] as const) {
      const a = await processed(await make(name, SOUND, [...args]));
      assert.equal(a.type, 'audio', name);
      assert.deepEqual(
        (await streams((await served(a.url)).data)).map((x) => x.codec_name),
        ['mp3'],
      );
      assert.ok(Math.abs(a.meta.original.duration - 2) < 0.2, `${name}: ${a.meta.original.duration}`);
    }
  });

  it("tells every node's processor of a queued job (stoa_work 'media')", async () => {
    const c = new pg.Client({ connectionString: s.databaseUrl });
    await c.connect();
    try {
      const heard: string[] = [];
      c.on('notification', (n) => n.channel === 'stoa_work' && heard.push(n.payload ?? ''));
      await c.query('LISTEN stoa_work');
      const mp3 = await make('n.mp3', SOUND, ['-c:a', 'libmp3lame']);
      assert.equal((await upload(s.url, token, mp3, {}, 'audio/mpeg')).status, 202);
      await eventually(async () => assert.ok(heard.includes('media'), heard.join()));
    } finally {
      await c.end();
    }
  });

  it('answers POST /api/v1/media once the file is processed (200), as Mastodon v1 does', async () => {
    const webm = await make('i.webm', VIDEO, ['-c:v', 'libvpx', '-b:v', '200k']);
    const form = new FormData();
    form.set('file', new Blob([webm]), 'clip.webm');
    const r = await fetch(`${s.url}/api/v1/media`, { method: 'POST', headers: { Authorization: `Bearer ${token}` }, body: form });
    const body = (await r.json()) as Json;
    assert.equal(r.status, 200, JSON.stringify(body));
    assert.equal(body.type, 'video');
    assert.ok(body.url);
  });

  it('refuses hostile files with 422: a 10-hour header, a broken moov, bytes that only look like video', async () => {
    const failed = async (data: Buffer) => {
      const r = await upload(s.url, token, data, {}, 'application/octet-stream');
      assert.equal(r.status, 202, JSON.stringify(r.body));
      await eventually(async () => {
        const g = await api(s.url, token, 'GET', `/api/v1/media/${r.body.id}`);
        assert.equal(g.status, 422, g.text);
        assert.equal(typeof g.body.error, 'string');
      }, 60_000);
      const p = await api(s.url, token, 'POST', '/api/v1/statuses', { status: 'refused', media_ids: [r.body.id] });
      assert.equal(p.status, 422);
      return r.body.id as string;
    };
    // A header that claims 10 hours: an MP4 whose movie header (mvhd) duration is rewritten.
    const mp4 = await make('j.mp4', VIDEO, ['-c:v', 'libx264', '-pix_fmt', 'yuv420p']);
    const long = Buffer.from(mp4);
    const mvhd = long.indexOf('mvhd');
    const version = long[mvhd + 4];
    assert.equal(version, 0);
    const timescale = long.readUInt32BE(mvhd + 16);
    long.writeUInt32BE(timescale * 36_000, mvhd + 20);
    for (let i = long.indexOf('mdhd'); i >= 0; i = long.indexOf('mdhd', i + 4)) {
      long.writeUInt32BE(long.readUInt32BE(i + 16) * 36_000, i + 20);
    }
    for (let i = long.indexOf('tkhd'); i >= 0; i = long.indexOf('tkhd', i + 4)) long.writeUInt32BE(timescale * 36_000, i + 24);
    await failed(long);
    // A moov cut short: the file is the header of an MP4 and little else.
    const moov = mp4.indexOf('moov');
    await failed(Buffer.concat([mp4.subarray(0, moov + 40), Buffer.alloc(64, 0xff)]));
    // An ftyp box and garbage: sniffed as video, unreadable by ffprobe.
    await failed(Buffer.concat([mp4.subarray(0, 32), Buffer.alloc(4096, 0x2a)]));
  });
});
