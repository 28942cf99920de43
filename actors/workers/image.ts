// Piscina task file of the image pool: one uploaded image re-encoded without its metadata, with its preview
// (src/media/reencode.ts), a remote image's preview alone (src/media/preview.ts, kind 'preview'), or a link card's
// image made small with its blurhash (src/media/image-summary.ts, kind 'card-image'). A bad file is a result, never a
// throw across the pool boundary.
import sharp from 'sharp';
import { type CardImageResult, type CardImageTask, summarizeCardImage } from '../../src/media/image-summary.js';
import { type PreviewResult, type PreviewTask, previewImage } from '../../src/media/preview.js';
import { reencodeImage, type ReencodeResult, type ReencodeTask } from '../../src/media/reencode.js';

// The pool's threads are the parallelism: libvips' own threads per image would multiply them past the cores, and
// its operation cache only holds memory between unrelated uploads.
sharp.concurrency(1);
sharp.cache(false);

export type ImageTask = ReencodeTask | PreviewTask | CardImageTask;
export type ImageResult = ReencodeResult | PreviewResult | CardImageResult;

export default function run(task: ImageTask): Promise<ImageResult> {
  if (!('kind' in task)) return reencodeImage(task);
  return task.kind === 'card-image' ? summarizeCardImage(task) : previewImage(task);
}
