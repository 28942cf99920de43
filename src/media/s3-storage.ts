// Media in an S3-compatible bucket (AWS, MinIO, Garage, Ceph, R2…), configured as Mastodon operators do (S3_BUCKET,
// S3_ENDPOINT, S3_REGION, AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY; config/schema.ts). Objects are named as local files
// are, one PUT each (our files are 40 MiB at most: no multipart upload, so S3_FORCE_SINGLE_REQUEST always holds).
// Reads pass byte ranges through (GetObject Range) and stream the body. Every call is bounded in time: the whole call
// for writes, heads and deletes; for a read, connecting and each wait for bytes (a long video may take longer whole).
import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { type MediaStorage, StorageUnusableError } from './storage.js';

export interface S3Options {
  readonly bucket: string;
  /** Absent: AWS's endpoint for the region. */
  readonly endpoint: string | undefined;
  readonly region: string;
  readonly accessKeyId: string | undefined;
  readonly secretAccessKey: string | undefined;
  /** Bucket in the path (MinIO-likes) rather than in the host name. */
  readonly forcePathStyle: boolean;
  /** Bound on connecting (S3_OPEN_TIMEOUT). */
  readonly openTimeoutMs: number;
  /** Bound on each wait for a response or for more bytes (S3_READ_TIMEOUT). */
  readonly readTimeoutMs: number;
}

export class S3Storage implements MediaStorage {
  readonly kind = 's3';
  readonly where: string;
  private readonly client: S3Client;

  constructor(private readonly o: S3Options) {
    this.where = `s3://${o.bucket}${o.endpoint ? ` at ${o.endpoint}` : ''}`;
    this.client = new S3Client({
      region: o.region,
      ...(o.endpoint !== undefined && { endpoint: o.endpoint }),
      forcePathStyle: o.forcePathStyle,
      ...(o.accessKeyId !== undefined &&
        o.secretAccessKey !== undefined && { credentials: { accessKeyId: o.accessKeyId, secretAccessKey: o.secretAccessKey } }),
      requestHandler: { connectionTimeout: o.openTimeoutMs, requestTimeout: o.readTimeoutMs },
      // A failed call is answered (a 404 or 502 for the file) rather than retried for long behind a waiting client.
      maxAttempts: 2,
      // Checksums only where S3 requires them: the SDK's default sends a streamed file as aws-chunked with a trailing
      // checksum, which many S3-compatible servers store framing and all (s3rver does: a video read back for
      // processing was unreadable). Content-Length is always sent, so a short upload is refused anyway.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  async check(): Promise<void> {
    const probe = `.probe-${randomBytes(6).toString('hex')}`;
    try {
      await this.putBuffer(probe, Buffer.from('ok'), 'text/plain');
      await this.delete(probe);
    } catch (e) {
      throw new StorageUnusableError(
        `media storage: the bucket ${this.where} cannot be written (${(e as Error).name}: ${(e as Error).message}); check S3_BUCKET, S3_ENDPOINT and the keys`,
      );
    }
  }

  async putFile(name: string, file: string, size: number, contentType: string): Promise<void> {
    const body = createReadStream(file);
    try {
      await this.client.send(new PutObjectCommand({ Bucket: this.o.bucket, Key: name, Body: body, ContentLength: size, ContentType: contentType }), {
        abortSignal: this.deadline(size),
      });
    } finally {
      body.destroy();
    }
    await rm(file, { force: true });
  }

  async putBuffer(name: string, data: Buffer, contentType: string): Promise<void> {
    await this.client.send(new PutObjectCommand({ Bucket: this.o.bucket, Key: name, Body: data, ContentLength: data.length, ContentType: contentType }), {
      abortSignal: this.deadline(data.length),
    });
  }

  async head(name: string): Promise<{ size: number } | undefined> {
    try {
      const r = await this.client.send(new HeadObjectCommand({ Bucket: this.o.bucket, Key: name }), { abortSignal: this.deadline(0) });
      return { size: r.ContentLength ?? 0 };
    } catch (e) {
      if (missing(e)) return undefined;
      throw e;
    }
  }

  async read(name: string, start: number, end: number, signal: AbortSignal): Promise<AsyncIterable<Uint8Array> | undefined> {
    try {
      const r = await this.client.send(new GetObjectCommand({ Bucket: this.o.bucket, Key: name, Range: `bytes=${start}-${end}` }), { abortSignal: signal });
      return r.Body as AsyncIterable<Uint8Array> | undefined;
    } catch (e) {
      if (missing(e)) return undefined;
      throw e;
    }
  }

  async delete(name: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.o.bucket, Key: name }), { abortSignal: this.deadline(0) });
  }

  /** The whole call's bound: connecting and an answer, plus time to send the bytes at a slow 1 MiB/s. */
  private deadline(bytes: number): AbortSignal {
    return AbortSignal.timeout(this.o.openTimeoutMs + this.o.readTimeoutMs + Math.ceil(bytes / 1024));
  }
}

function missing(e: unknown): boolean {
  return e instanceof S3ServiceException && (e.name === 'NoSuchKey' || e.name === 'NotFound' || e.$metadata.httpStatusCode === 404);
}
