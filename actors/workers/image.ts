// Piscina task file of the image pool: one uploaded image re-encoded without its metadata, with its preview
// (src/media/reencode.ts), or a remote image's preview alone (src/media/preview.ts). A bad file is a result, never a
// throw across the pool boundary.
import sharp from 'sharp';
import { type PreviewResult, type PreviewTask, previewImage } from '../../src/media/preview.js';
import { reencodeImage, type ReencodeResult, type ReencodeTask } from '../../src/media/reencode.js';

// The pool's threads are the parallelism: libvips' own threads per image would multiply them past the cores, and
// its operation cache only holds memory between unrelated uploads.
sharp.concurrency(1);
sharp.cache(false);

export default function run(task: ReencodeTask | PreviewTask): Promise<ReencodeResult | PreviewResult> {
  return 'kind' in task ? previewImage(task) : reencodeImage(task);
}
