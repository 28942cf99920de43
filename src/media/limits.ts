// What an upload may be: the one table the upload route enforces and the instance documents advertise
// (configuration.media_attachments), so a client that sizes or converts files before sending them is told the truth.
const MiB = 1024 * 1024;

export const MEDIA_LIMITS = {
  imageBytes: 16 * MiB,
  /** Video and audio. */
  videoBytes: 40 * MiB,
  descriptionChars: 1500,
  /** Width × height of an image (7680×4320, as Mastodon); a larger image is refused. */
  imageMatrix: 33_177_600,
  // Advertised as Mastodon does, for clients that transcode before uploading; checked by video processing
  // (media/transcode.ts), which refuses a larger video or a faster frame rate.
  videoMatrix: 8_294_400,
  videoFrameRate: 120,
} as const;

/** Room in a multipart body beside the file: part headers, description and focus, a thumbnail some clients add. */
const MULTIPART_ROOM = 1 * MiB;

/** MAX_MULTIPART_BYTES by default: just enough for the largest video. */
export const DEFAULT_MULTIPART_BYTES = MEDIA_LIMITS.videoBytes + MULTIPART_ROOM;

export interface UploadLimits {
  readonly image: number;
  /** Video and audio. */
  readonly video: number;
}

/** The largest files an upload can carry under this multipart body limit (an operator may lower it). */
export function uploadLimits(multipartBytes: number): UploadLimits {
  const room = Math.max(multipartBytes - MULTIPART_ROOM, Math.floor(multipartBytes / 2));
  return { image: Math.min(MEDIA_LIMITS.imageBytes, room), video: Math.min(MEDIA_LIMITS.videoBytes, room) };
}

/** "16 MiB", "512 KiB": a limit as people read it. */
export function humanBytes(n: number): string {
  if (n >= MiB && n % MiB === 0) return `${n / MiB} MiB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} bytes`;
}
