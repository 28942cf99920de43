// Piscina task file of the image pool: one uploaded image re-encoded without its metadata (src/media/reencode.ts).
// A bad file is a result, never a throw across the pool boundary.
import sharp from 'sharp';
import { reencodeImage, type ReencodeResult, type ReencodeTask } from '../../src/media/reencode.js';

// The pool's threads are the parallelism: libvips' own threads per image would multiply them past the cores, and
// its operation cache only holds memory between unrelated uploads.
sharp.concurrency(1);
sharp.cache(false);

export default function run(task: ReencodeTask): Promise<ReencodeResult> {
  return reencodeImage(task);
}
