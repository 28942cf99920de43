// Debian's ffmpeg and ffprobe as child processes, boxed in: the demuxer is named (so no playlist or concat format
// can open other files), only the file protocol is allowed, stdin is closed, the CPU time is capped by the kernel
// (ulimit -t: SIGXCPU, then SIGKILL) and the wall time by us (SIGKILL on expiry), and what they print is capped.
import { spawn } from 'node:child_process';

export const FFMPEG = '/usr/bin/ffmpeg';
export const FFPROBE = '/usr/bin/ffprobe';

/** The demuxer ffmpeg must use for each accepted content type: never guessed from the bytes. */
export const DEMUXERS: Readonly<Record<string, string>> = {
  'video/mp4': 'mov',
  'audio/mp4': 'mov',
  'video/webm': 'matroska',
  'image/gif': 'gif',
  'audio/mpeg': 'mp3',
  'audio/ogg': 'ogg',
  'audio/wav': 'wav',
  'audio/flac': 'flac',
};

export interface RunLimits {
  /** Killed (SIGKILL) after this long. */
  readonly wallMs: number;
  /** Seconds of CPU time the kernel allows the process. */
  readonly cpuSeconds: number;
  readonly signal?: AbortSignal;
}

export interface RunResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
}

const MAX_OUTPUT = 1024 * 1024;

/** Runs a program under the limits; resolves when it exits, whatever the exit. */
export function runLimited(program: string, args: readonly string[], l: RunLimits): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    // sh sets the CPU limit and execs the program: no shell stays in between, and no argument is ever parsed by it.
    const child = spawn('/bin/sh', ['-c', `ulimit -t ${Math.max(1, Math.ceil(l.cpuSeconds))} && exec "$0" "$@"`, program, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: '/usr/bin:/bin', LANG: 'C' },
    });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.on('data', (d: Buffer) => {
      if (stdout.length < MAX_OUTPUT) stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      if (stderr.length < MAX_OUTPUT) stderr += d.toString();
    });
    const kill = () => child.kill('SIGKILL');
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, l.wallMs);
    l.signal?.addEventListener('abort', kill, { once: true });
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      l.signal?.removeEventListener('abort', kill);
      resolve({ code, stdout, stderr: stderr.slice(-4000), timedOut });
    });
  });
}

/** ffprobe's view of a file, read with the named demuxer; null when it cannot read it. */
export async function probe(file: string, contentType: string, l: RunLimits): Promise<Probe | null> {
  const demuxer = DEMUXERS[contentType];
  if (!demuxer) return null;
  const r = await runLimited(
    FFPROBE,
    ['-v', 'error', '-protocol_whitelist', 'file', '-f', demuxer, '-print_format', 'json', '-show_format', '-show_streams', '-i', `file:${file}`],
    l,
  );
  if (r.code !== 0) return null;
  try {
    return JSON.parse(r.stdout) as Probe;
  } catch {
    return null;
  }
}

/** The part of ffprobe's JSON read here (every field may be missing in a damaged file). */
export interface Probe {
  readonly format?: { readonly format_name?: string; readonly duration?: string; readonly bit_rate?: string };
  readonly streams?: readonly ProbeStream[];
}

export interface ProbeStream {
  readonly codec_type?: string;
  readonly codec_name?: string;
  readonly pix_fmt?: string;
  readonly width?: number;
  readonly height?: number;
  readonly avg_frame_rate?: string;
  readonly r_frame_rate?: string;
  readonly nb_frames?: string;
  readonly duration?: string;
  readonly bit_rate?: string;
  readonly sample_rate?: string;
  readonly channels?: number;
  readonly channel_layout?: string;
}

/** The arguments before an output that read `file` as `contentType`, and nothing else. */
export function inputArgs(file: string, contentType: string): string[] {
  return ['-nostdin', '-hide_banner', '-v', 'error', '-protocol_whitelist', 'file', '-f', DEMUXERS[contentType]!, '-i', `file:${file}`];
}
