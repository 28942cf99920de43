// A large text body as the pieces it was written in (a page's statuses, accounts and groups), turned into bytes in
// one buffer that every response reuses. Joining a page into one string and handing it to uWS cost a 200 KB grouped
// notifications page ~300 µs of Node (issue 19): V8 makes a string over ~128 KB in fresh pages of its large-object
// space (page faults, zeroing, unmapping at the next GC), and uWS measures, then encodes it, in two passes. Here each
// piece is encoded straight into bytes that stay mapped.
/** A body made of text pieces, sent as their concatenation in UTF-8. */
export class TextPieces {
  constructor(readonly parts: readonly string[]) {}
}

/** Kept between responses up to this size; a larger body gets a buffer of its own. */
const KEEP_MAX = 4 * 1024 * 1024;
let out = Buffer.allocUnsafe(256 * 1024);

/**
 * The body's bytes: a view of the shared buffer, valid until the next call. uWS copies what it cannot send at once
 * before end() returns, so a response written synchronously may hand this view to it.
 */
export function bytesOf(body: TextPieces): Buffer {
  let buf = out;
  let off = 0;
  for (const p of body.parts) {
    // A UTF-16 code unit takes at most 3 bytes in UTF-8 (a surrogate pair takes 4 for its 2).
    if (off + p.length * 3 > buf.length) {
      const grown = Buffer.allocUnsafe(Math.max(buf.length * 2, off + p.length * 3));
      buf.copy(grown, 0, 0, off);
      buf = grown;
      if (buf.length <= KEEP_MAX) out = buf;
    }
    off += buf.write(p, off);
  }
  return buf.subarray(0, off);
}
