// A real S3-API server on loopback for tests (s3rver: objects in a temporary directory), with one bucket, and what a
// test needs to look into it: the objects' names and bytes, through the same SDK the server uses.
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';

interface S3rverInstance {
  run(): Promise<{ address: string; port: number }>;
  close(): Promise<void>;
}
type S3rverClass = new (o: Record<string, unknown>) => S3rverInstance;
// s3rver ships no types; it is loaded as the CommonJS module it is.
const S3rver = createRequire(import.meta.url)('s3rver') as S3rverClass;

export interface TestS3 {
  readonly endpoint: string;
  readonly bucket: string;
  /** The environment that points a server at this bucket, as an operator would write it. */
  readonly env: Readonly<Record<string, string>>;
  /** The names of the objects in the bucket, sorted. */
  keys(): Promise<string[]>;
  bytes(key: string): Promise<Buffer>;
  close(): Promise<void>;
}

export async function startTestS3(bucket = 'stoa-media'): Promise<TestS3> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'stoa-s3-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: dir, configureBuckets: [{ name: bucket }] });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
  return {
    endpoint,
    bucket,
    env: {
      S3_ENABLED: 'true',
      S3_BUCKET: bucket,
      S3_ENDPOINT: endpoint,
      S3_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
    },
    async keys() {
      const r = await client.send(new ListObjectsV2Command({ Bucket: bucket }));
      return (r.Contents ?? []).map((o) => o.Key!).sort();
    },
    async bytes(key) {
      const r = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      return Buffer.from(await r.Body!.transformToByteArray());
    },
    async close() {
      client.destroy();
      await server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
