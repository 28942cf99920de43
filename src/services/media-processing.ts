// One media job run (store/media-jobs.ts): the file as sent copied from the media storage to a temporary file, made
// servable by media/transcode.ts under the lease (renewed while ffmpeg works), the results kept on the storage and
// the row marked done, or failed with the reason the API reports. The media processor actor runs these one at a time.
import { createWriteStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import type { Logger } from '../log.js';
import type { MediaFiles } from '../media/media-files.js';
import { processMedia, type ProcessResult } from '../media/transcode.js';
import { tempPath } from '../media/temp-files.js';
import type { RunLimits } from '../media/ffmpeg.js';
import type { MediaJob, MediaJobStore } from '../store/media-jobs.js';

export interface MediaProcessingDeps {
  readonly jobs: MediaJobStore;
  readonly files: MediaFiles;
  readonly tempDir: string;
  readonly log: Logger;
  /** The node's name: the owner of its leases. */
  readonly owner: string;
  readonly leaseMs: number;
  /** Limits of each ffmpeg run. */
  readonly limits: Omit<RunLimits, 'signal'>;
  /** Test-only: a pause after a job is claimed (MEDIA_PROCESS_HOLD_MS), so a test can kill the node mid-job. */
  readonly holdMs?: number;
}

/** Runs the next job, if any: true when one was run (more may wait). */
export async function processNext(d: MediaProcessingDeps): Promise<boolean> {
  const { job, exhausted } = await d.jobs.claim(d.owner, d.leaseMs);
  for (const name of exhausted) await d.files.remove(name).catch(() => undefined);
  if (!job) return false;
  const log = d.log.child({ media: job.media.id, attempt: job.attempt });
  const abort = new AbortController();
  // The lease is renewed while the work goes on; a node that dies stops renewing it and another takes the job over.
  const renewal = setInterval(
    () => {
      void d.jobs.renew(job.media.id, d.owner, d.leaseMs).then(
        (mine) => {
          if (!mine) abort.abort();
        },
        (err: unknown) => log.warn({ err }, 'media job lease not renewed'),
      );
    },
    Math.max(100, Math.floor(d.leaseMs / 3)),
  );
  try {
    await run(d, job, abort.signal, log);
  } finally {
    clearInterval(renewal);
  }
  return true;
}

async function run(d: MediaProcessingDeps, job: MediaJob, signal: AbortSignal, log: Logger): Promise<void> {
  if (d.holdMs) {
    log.warn({ ms: d.holdMs }, 'holding a media job before processing (test-only MEDIA_PROCESS_HOLD_MS)');
    await new Promise((resolve) => setTimeout(resolve, d.holdMs));
  }
  const input = tempPath(d.tempDir, '.source');
  let result: ProcessResult | undefined;
  try {
    const f = await d.files.locate(job.sourceFileName);
    if (!f) {
      await d.jobs.failed(job.media.id, d.owner, 'File could not be processed (the upload is gone)');
      return;
    }
    const body = f.size > 0 ? await f.read(0, f.size - 1, signal) : undefined;
    if (!body) {
      await d.jobs.failed(job.media.id, d.owner, 'File could not be processed (the upload is gone)');
      return;
    }
    await pipeline(body, createWriteStream(input, { mode: 0o600 }));
    const gif = job.media.contentType === 'image/gif';
    result = await processMedia(input, job.media.contentType, gif, { tempDir: d.tempDir, limits: { ...d.limits, signal } });
    if (signal.aborted) return; // the job is another node's now
    if (!result.ok) {
      log.info({ error: result.error }, 'media refused by processing');
      // The file goes before the row says so (a client told 422 finds nothing left of it), while the job is still ours.
      if (await d.jobs.renew(job.media.id, d.owner, d.leaseMs)) {
        await d.files.remove(job.sourceFileName);
        await d.jobs.failed(job.media.id, d.owner, result.error);
      }
      return;
    }
    const size = (await stat(result.output)).size;
    const fileName = await d.files.adopt(result.output, result.contentType);
    const previewFileName = result.poster ? await d.files.adopt(result.poster, 'image/jpeg') : null;
    const small = result.meta['small'] as { width: number; height: number } | undefined;
    const mine = await d.jobs.done(job.media.id, d.owner, {
      type: result.type,
      contentType: result.contentType,
      fileName,
      fileSize: size,
      width: result.width,
      height: result.height,
      previewFileName,
      smallWidth: small?.width ?? null,
      smallHeight: small?.height ?? null,
      blurhash: result.blurhash,
      meta: result.meta,
    });
    if (!mine) {
      // Another node took the job over meanwhile: its files are the ones the row names.
      await d.files.remove(fileName);
      if (previewFileName) await d.files.remove(previewFileName);
      return;
    }
    await d.files.remove(job.sourceFileName);
    log.info({ type: result.type, kept: result.kept }, 'media processed');
  } finally {
    await rm(input, { force: true });
    if (result?.ok) {
      await rm(result.output, { force: true });
      if (result.poster) await rm(result.poster, { force: true });
    }
  }
}
