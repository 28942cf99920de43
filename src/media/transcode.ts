// One uploaded video, animated GIF or audio file made servable, as Mastodon's transcoders do: probed, refused when
// it is unreadable or beyond the limits, kept as sent when browsers already play it (H.264/AAC MP4, MP3), otherwise
// transcoded (video and GIF → H.264 MP4, GIF silent; audio → MP3); a video's first frame becomes its poster (JPEG)
// and blurhash. Every step is an ffmpeg or ffprobe child process under media/ffmpeg.ts's limits.
import { readFile, rm, stat } from 'node:fs/promises';
import { blurhashOf, BLURHASH_SIDE } from './blurhash.js';
import { FFMPEG, inputArgs, probe, runLimited, type Probe, type ProbeStream, type RunLimits } from './ffmpeg.js';
import { MEDIA_LIMITS } from './limits.js';
import { tempPath } from './temp-files.js';

/** Mastodon's MAX_VIDEO_FRAMES (about 10 minutes at 60 fps): a longer video is refused. */
export const MAX_VIDEO_FRAMES = 36_000;
/** Audio longer than this is refused (Mastodon sets none; a header claiming days would hold a processor for hours). */
export const MAX_AUDIO_SECONDS = 3 * 3600;

export type ProcessedType = 'video' | 'gifv' | 'audio';

export interface Processed {
  readonly ok: true;
  readonly type: ProcessedType;
  /** The file to serve: the input itself when kept as sent. */
  readonly output: string;
  readonly kept: boolean;
  readonly contentType: 'video/mp4' | 'audio/mpeg';
  readonly poster: string | null;
  readonly width: number | null;
  readonly height: number | null;
  readonly blurhash: string | null;
  readonly meta: Record<string, unknown>;
}

export type ProcessResult = Processed | { readonly ok: false; readonly error: string };

export interface ProcessOptions {
  readonly tempDir: string;
  /** Limits of each ffmpeg run (the transcode, the poster). */
  readonly limits: RunLimits;
}

/** Processes `input` (sniffed as `contentType`); the caller removes `output` and `poster` when done with them. */
export async function processMedia(input: string, contentType: string, gif: boolean, o: ProcessOptions): Promise<ProcessResult> {
  const p = await probe(input, contentType, { ...o.limits, wallMs: Math.min(o.limits.wallMs, 30_000), cpuSeconds: Math.min(o.limits.cpuSeconds, 30) });
  if (!p) return { ok: false, error: 'File could not be read as video or audio (truncated or damaged?)' };
  const video = p.streams?.find((s) => s.codec_type === 'video' && !isCoverArt(s));
  const audio = p.streams?.find((s) => s.codec_type === 'audio');
  const duration = num(p.format?.duration) ?? num(video?.duration) ?? num(audio?.duration);
  if (gif) return video ? processVideo(input, contentType, p, video, undefined, duration, 'gifv', o) : unreadable();
  if (video) return processVideo(input, contentType, p, video, audio, duration, 'video', o);
  if (audio) return processAudio(input, contentType, p, audio, duration, o);
  return { ok: false, error: 'File has no video or audio stream' };
}

const unreadable = (): ProcessResult => ({ ok: false, error: 'File could not be read as video or audio (truncated or damaged?)' });

/** An MP3's or M4A's embedded album cover is a one-frame "video" stream: the file is audio. */
function isCoverArt(s: ProbeStream): boolean {
  return (s as { disposition?: { attached_pic?: number } }).disposition?.attached_pic === 1;
}

function num(v: string | number | undefined): number | null {
  const n = typeof v === 'number' ? v : v === undefined ? NaN : Number.parseFloat(v);
  return Number.isFinite(n) ? n : null;
}

/** "30/1", "30000/1001" → 29.97; null when unknown. */
function rate(r: string | undefined): number | null {
  if (!r) return null;
  const [a, b] = r.split('/').map(Number);
  if (!a || !b || !Number.isFinite(a / b)) return null;
  return a / b;
}

/** Mastodon's length: "0:00:05.00". */
export function lengthOf(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds - h * 3600 - m * 60;
  return `${h}:${String(m).padStart(2, '0')}:${s.toFixed(2).padStart(5, '0')}`;
}

const round2 = (n: number) => Math.round(n * 100) / 100;

async function processVideo(
  input: string,
  contentType: string,
  p: Probe,
  v: ProbeStream,
  a: ProbeStream | undefined,
  duration: number | null,
  type: 'video' | 'gifv',
  o: ProcessOptions,
): Promise<ProcessResult> {
  const width = v.width ?? 0;
  const height = v.height ?? 0;
  if (width <= 0 || height <= 0) return unreadable();
  if (width * height > MEDIA_LIMITS.videoMatrix) return { ok: false, error: `${width}x${height} videos are not supported` };
  const fps = rate(v.avg_frame_rate) ?? rate(v.r_frame_rate) ?? 0;
  if (type === 'video' && fps > MEDIA_LIMITS.videoFrameRate) return { ok: false, error: `${Math.round(fps)}fps videos are not supported` };
  if (duration !== null && duration * Math.max(fps, 1) > MAX_VIDEO_FRAMES) {
    return { ok: false, error: `Video is too long (at most ${MAX_VIDEO_FRAMES} frames, about 10 minutes at 60 fps)` };
  }
  // Kept as sent when browsers play it as it is (Mastodon's eligible_to_passthrough?): an MP4 (not a QuickTime
  // file) of H.264 in yuv420p, with AAC audio or none.
  const brand = (p.format as { tags?: { major_brand?: string } } | undefined)?.tags?.major_brand?.trim();
  const passthrough =
    type === 'video' &&
    contentType === 'video/mp4' &&
    brand !== 'qt' &&
    v.codec_name === 'h264' &&
    v.pix_fmt === 'yuv420p' &&
    (a === undefined || a.codec_name === 'aac');
  let output = input;
  if (!passthrough) {
    output = tempPath(o.tempDir, '.mp4');
    const args = [
      ...inputArgs(input, contentType),
      '-map_metadata',
      '-1',
      '-map',
      '0:v:0',
      ...(type === 'video' && a ? ['-map', '0:a:0', '-c:a', 'aac', '-b:a', '192k'] : ['-an']),
      '-c:v',
      'libx264',
      '-preset',
      'veryfast',
      '-crf',
      '23',
      '-threads',
      '2',
      '-pix_fmt',
      'yuv420p',
      // H.264 in yuv420p wants even sides.
      '-vf',
      'scale=trunc(iw/2)*2:trunc(ih/2)*2',
      '-frames:v',
      String(MAX_VIDEO_FRAMES),
      '-movflags',
      '+faststart',
      '-f',
      'mp4',
      '-y',
      `file:${output}`,
    ];
    const r = await runLimited(FFMPEG, args, o.limits);
    if (r.code !== 0) {
      await rm(output, { force: true });
      return { ok: false, error: r.timedOut ? 'Video took too long to process' : 'File could not be converted (truncated or damaged?)' };
    }
  }
  const poster = await posterOf(input, contentType, width, height, o);
  if (!poster) {
    if (output !== input) await rm(output, { force: true });
    return unreadable();
  }
  const bitrate = num(p.format?.bit_rate) ?? (duration ? Math.round(((await stat(input)).size * 8) / duration) : null);
  const size = { width, height, size: `${width}x${height}`, aspect: width / height };
  const meta: Record<string, unknown> = {
    ...(duration !== null ? { length: lengthOf(duration), duration: round2(duration) } : {}),
    fps: Math.round(fps),
    ...size,
    ...(a ? audioFields(a) : {}),
    original: { width, height, frame_rate: v.avg_frame_rate ?? v.r_frame_rate ?? null, duration: duration === null ? null : round2(duration), bitrate },
    small: { width: poster.width, height: poster.height, size: `${poster.width}x${poster.height}`, aspect: poster.width / poster.height },
  };
  return {
    ok: true,
    type,
    output,
    kept: passthrough,
    contentType: 'video/mp4',
    poster: poster.file,
    width,
    height,
    blurhash: poster.blurhash,
    meta,
  };
}

function audioFields(a: ProbeStream): Record<string, unknown> {
  return {
    audio_encode: a.codec_name ?? null,
    audio_bitrate: a.sample_rate ? `${a.sample_rate} Hz` : null,
    audio_channels: a.channel_layout ?? (a.channels === 1 ? 'mono' : a.channels === 2 ? 'stereo' : null),
  };
}

/** Poster side (Mastodon's small style: at most 230,400 pixels, 640×360). */
const POSTER_PIXELS = 230_400;

/** The first frame as a JPEG no larger than Mastodon's small style, and its blurhash. */
async function posterOf(
  input: string,
  contentType: string,
  width: number,
  height: number,
  o: ProcessOptions,
): Promise<{ file: string; width: number; height: number; blurhash: string } | null> {
  const scale = Math.min(1, Math.sqrt(POSTER_PIXELS / (width * height)));
  const pw = Math.max(2, Math.round(width * scale));
  const ph = Math.max(2, Math.round(height * scale));
  const bw = BLURHASH_SIDE;
  const bh = Math.max(1, Math.round((BLURHASH_SIDE * height) / width));
  const file = tempPath(o.tempDir, '.jpg');
  const raw = tempPath(o.tempDir, '.rgba');
  try {
    const r = await runLimited(
      FFMPEG,
      [
        ...inputArgs(input, contentType),
        '-map_metadata',
        '-1',
        '-frames:v',
        '1',
        '-vf',
        `scale=${pw}:${ph}`,
        '-f',
        'image2',
        '-c:v',
        'mjpeg',
        '-q:v',
        '3',
        '-y',
        `file:${file}`,
        '-frames:v',
        '1',
        '-vf',
        `scale=${bw}:${bh}`,
        '-pix_fmt',
        'rgba',
        '-f',
        'rawvideo',
        '-y',
        `file:${raw}`,
      ],
      { ...o.limits, wallMs: Math.min(o.limits.wallMs, 30_000), cpuSeconds: Math.min(o.limits.cpuSeconds, 30) },
    );
    if (r.code !== 0) {
      await rm(file, { force: true });
      return null;
    }
    const pixels = await readFile(raw);
    if (pixels.length !== bw * bh * 4) {
      await rm(file, { force: true });
      return null;
    }
    // 32×n pixels, 4×4 components: microseconds of work.
    return { file, width: pw, height: ph, blurhash: blurhashOf(new Uint8ClampedArray(pixels.buffer, pixels.byteOffset, pixels.length), bw, bh) };
  } finally {
    await rm(raw, { force: true });
  }
}

async function processAudio(input: string, contentType: string, p: Probe, a: ProbeStream, duration: number | null, o: ProcessOptions): Promise<ProcessResult> {
  if (duration !== null && duration > MAX_AUDIO_SECONDS) return { ok: false, error: `Audio is too long (at most ${MAX_AUDIO_SECONDS / 3600} hours)` };
  const bitrate = num(p.format?.bit_rate) ?? num(a.bit_rate);
  const kept = contentType === 'audio/mpeg' && a.codec_name === 'mp3';
  let output = input;
  if (!kept) {
    output = tempPath(o.tempDir, '.mp3');
    const r = await runLimited(
      FFMPEG,
      [...inputArgs(input, contentType), '-map_metadata', '-1', '-map', '0:a:0', '-vn', '-c:a', 'libmp3lame', '-q:a', '2', '-f', 'mp3', '-y', `file:${output}`],
      o.limits,
    );
    if (r.code !== 0) {
      await rm(output, { force: true });
      return { ok: false, error: r.timedOut ? 'Audio took too long to process' : 'File could not be converted (truncated or damaged?)' };
    }
  }
  const meta = {
    ...(duration !== null ? { length: lengthOf(duration), duration: round2(duration) } : {}),
    ...audioFields(a),
    original: { duration: duration === null ? null : round2(duration), bitrate },
  };
  return { ok: true, type: 'audio', output, kept, contentType: 'audio/mpeg', poster: null, width: null, height: null, blurhash: null, meta };
}
