// Piscina task file of the image pool: one uploaded image re-encoded without its metadata (src/media/reencode.ts), or
// a link card's image made small with its blurhash (src/media/image-summary.ts, task kind 'card-image').
// A bad file is a result, never a throw across the pool boundary.
import sharp from 'sharp';
import { type CardImageResult, type CardImageTask, summarizeCardImage } from '../../src/media/image-summary.js';
import { reencodeImage, type ReencodeResult, type ReencodeTask } from '../../src/media/reencode.js';

// The pool's threads are the parallelism: libvips' own threads per image would multiply them past the cores, and
// its operation cache only holds memory between unrelated uploads.
sharp.concurrency(1);
sharp.cache(false);

export default function run(task: ReencodeTask | CardImageTask): Promise<ReencodeResult | CardImageResult> {
  if ('kind' in task && task.kind === 'card-image') return summarizeCardImage(task);
  return reencodeImage(task as ReencodeTask);
}
