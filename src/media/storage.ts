// Where media bytes live: one interface, two backends (local-storage.ts: a directory, the default; s3-storage.ts: an
// S3-compatible bucket). Every node of a cluster must reach the same storage, so a file kept by one node (an upload,
// a remote file fetched by the proxy) is served by all. Names are ours (random, media-files.ts), never a client's.

export interface MediaStorage {
  /** 'local' or 's3', for the start-up log line. */
  readonly kind: string;
  /** Where files go, for the log and error messages (a directory, or s3://bucket). */
  readonly where: string;
  /** Checked once at start: the storage can be written, read and deleted from; throws a clear message otherwise. */
  check(): Promise<void>;
  /** Stores a finished file (a temporary file is consumed: moved, or uploaded and removed). */
  putFile(name: string, file: string, size: number, contentType: string): Promise<void>;
  putBuffer(name: string, data: Buffer, contentType: string): Promise<void>;
  /** The file's size; undefined when it does not exist. */
  head(name: string): Promise<{ readonly size: number } | undefined>;
  /** Bytes start..end (inclusive) of a file; undefined when it does not exist. */
  read(name: string, start: number, end: number, signal: AbortSignal): Promise<AsyncIterable<Uint8Array> | undefined>;
  /** Deletes a file; a missing one is not an error. */
  delete(name: string): Promise<void>;
}

export class StorageUnusableError extends Error {}
