// File types from the first bytes: every format accepted is one the instance documents list, ISO BMFF files are
// told apart by their brands (MP4, QuickTime, M4A, AVIF; HEIC refused), and the upload sizes follow the multipart
// limit.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_MULTIPART_BYTES, MEDIA_LIMITS, uploadLimits } from '../../src/media/limits.js';
import { sniff, SUPPORTED_MIME_TYPES } from '../../src/media/sniff.js';
import { ftyp, png } from '../support/media.js';

const MiB = 1024 * 1024;
const bytes = (...b: number[]) => Buffer.concat([Buffer.from(b), Buffer.alloc(64)]);

describe('sniff', () => {
  const samples: [string, Buffer, string, string][] = [
    ['PNG', png(3, 2), 'image/png', 'image'],
    ['GIF', Buffer.concat([Buffer.from('GIF89a'), Buffer.from([3, 0, 2, 0]), Buffer.alloc(32)]), 'image/gif', 'image'],
    ['JPEG', bytes(0xff, 0xd8, 0xff, 0xe0), 'image/jpeg', 'image'],
    ['WebP', Buffer.concat([Buffer.from('RIFF\0\0\0\0WEBPVP8 '), Buffer.alloc(32)]), 'image/webp', 'image'],
    ['AVIF', ftyp('avif', ['mif1', 'miaf']), 'image/avif', 'image'],
    ['AVIF under a HEIF major brand', ftyp('mif1', ['avif', 'miaf']), 'image/avif', 'image'],
    ['MP4', ftyp('isom', ['iso2', 'mp41']), 'video/mp4', 'video'],
    ['QuickTime', ftyp('qt  ', ['qt  ']), 'video/mp4', 'video'],
    ['M4A', ftyp('M4A ', ['M4A ', 'mp42']), 'audio/mp4', 'audio'],
    ['WebM', bytes(0x1a, 0x45, 0xdf, 0xa3), 'video/webm', 'video'],
    ['Ogg', Buffer.concat([Buffer.from('OggS'), Buffer.alloc(32)]), 'audio/ogg', 'audio'],
    ['MP3 with ID3', Buffer.concat([Buffer.from('ID3'), Buffer.alloc(32)]), 'audio/mpeg', 'audio'],
  ];

  it('recognises each accepted format, and the instance documents list every type it serves', () => {
    for (const [name, data, contentType, type] of samples) {
      const k = sniff(data);
      assert.equal(k?.contentType, contentType, name);
      assert.equal(k?.type, type, name);
      assert.ok(SUPPORTED_MIME_TYPES.includes(contentType), `${contentType} is advertised`);
    }
    assert.deepEqual(sniff(png(640, 480)), { contentType: 'image/png', type: 'image', width: 640, height: 480 });
  });

  it('refuses HEIC and HEIF images (no browser shows them and nothing here converts them), and what is not media', () => {
    for (const brand of ['heic', 'heix', 'mif1', 'msf1']) assert.equal(sniff(ftyp(brand, ['mif1', 'heic'])), null, brand);
    assert.equal(sniff(Buffer.from('<!doctype html><html><body>hi</body></html>')), null);
    assert.equal(sniff(Buffer.alloc(0)), null);
  });
});

describe('upload limits', () => {
  it('by default fit the largest image and video in the multipart limit', () => {
    assert.deepEqual(uploadLimits(DEFAULT_MULTIPART_BYTES), { image: MEDIA_LIMITS.imageBytes, video: MEDIA_LIMITS.videoBytes });
    assert.equal(MEDIA_LIMITS.imageBytes, 16 * MiB);
    assert.equal(MEDIA_LIMITS.videoBytes, 40 * MiB);
  });

  it('shrink with a lower multipart limit, leaving room for the rest of the form', () => {
    assert.deepEqual(uploadLimits(8 * MiB), { image: 7 * MiB, video: 7 * MiB });
    assert.deepEqual(uploadLimits(20 * MiB), { image: 16 * MiB, video: 19 * MiB });
    assert.deepEqual(uploadLimits(4096), { image: 2048, video: 2048 });
  });
});
