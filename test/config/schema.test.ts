import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../config/schema.js';

const MAIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src/main.js');

describe('configuration', () => {
  it('has working defaults', () => {
    const c = loadConfig({});
    assert.equal(c.port, 3000);
    assert.equal(c.host, '127.0.0.1');
    assert.equal(c.baseUrl, 'http://localhost:3000');
    assert.equal(c.localDomain, 'localhost:3000');
    assert.equal(c.databaseUrl, undefined);
    assert.equal(c.registrations, 'closed');
    assert.deepEqual(c.federation.allowPrivate, []);
    assert.equal(c.limits.bodyBytesInFlight, 64 * 1024 * 1024);
    assert.ok(c.verifyPool.maxThreads >= c.verifyPool.minThreads);
    assert.ok(Object.isFrozen(c));
  });

  it('reads which private address space federation may reach', () => {
    assert.deepEqual(loadConfig({ FEDERATION_ALLOW_PRIVATE: 'loopback' }).federation.allowPrivate, ['127.0.0.0/8', '::1/128']);
    assert.deepEqual(loadConfig({ FEDERATION_ALLOW_PRIVATE: 'loopback, 10.1.0.0/16' }).federation.allowPrivate, ['127.0.0.0/8', '::1/128', '10.1.0.0/16']);
    assert.deepEqual(loadConfig({ FEDERATION_ALLOW_PRIVATE: 'true' }).federation.allowPrivate, ['0.0.0.0/0', '::/0']);
    assert.deepEqual(loadConfig({ FEDERATION_ALLOW_PRIVATE: 'off' }).federation.allowPrivate, []);
  });

  it('reads the supervisor: one server process, 5 restarts in 60 s, unless told', () => {
    assert.deepEqual(loadConfig({}).supervisor, { processes: 1, restartIntensity: 5, restartPeriodMs: 60_000, spare: true });
    assert.equal(loadConfig({}).supervised, false);
    const c = loadConfig({
      STOA_PROCESSES: '4',
      STOA_RESTART_INTENSITY: '0',
      STOA_RESTART_PERIOD_MS: '5000',
      STOA_SPARE_PROCESS: 'off',
      STOA_SUPERVISED: 'true',
    });
    assert.deepEqual(c.supervisor, { processes: 4, restartIntensity: 0, restartPeriodMs: 5_000, spare: false });
    assert.equal(c.supervised, true);
  });

  it('allows a split domain: handles on one domain, hosting on another', () => {
    const c = loadConfig({ BASE_URL: 'https://social.example.com/', LOCAL_DOMAIN: 'Example.com' });
    assert.equal(c.baseUrl, 'https://social.example.com');
    assert.equal(c.localDomain, 'example.com');
  });

  it('reads where /metrics is served: off by default, a token, a listen address', () => {
    assert.deepEqual(loadConfig({}).metrics, { token: undefined, listen: undefined });
    const c = loadConfig({ METRICS_TOKEN: '0123456789abcdef', METRICS_LISTEN: '127.0.0.1:9394' });
    assert.deepEqual(c.metrics, { token: '0123456789abcdef', listen: { host: '127.0.0.1', port: 9394 } });
    assert.deepEqual(loadConfig({ METRICS_LISTEN: '[::1]:9394' }).metrics.listen, { host: '::1', port: 9394 });
  });

  it('reads the media storage: a directory by default, or an S3 bucket with Mastodon-style variables', () => {
    const processing = { leaseMs: 60_000, timeoutMs: 600_000, cpuSeconds: 1_200, holdMs: 0 };
    assert.deepEqual(loadConfig({ STOA_DATA_DIR: '/srv/stoa' }).media, {
      storage: { kind: 'local', dir: '/srv/stoa/media' },
      processing,
      publicUrl: undefined,
    });
    assert.deepEqual(loadConfig({ MEDIA_DIR: '/mnt/shared/media' }).media.storage, { kind: 'local', dir: '/mnt/shared/media' });
    const s3 = { S3_ENABLED: 'true', S3_BUCKET: 'stoa-files', AWS_ACCESS_KEY_ID: 'AKIA1', AWS_SECRET_ACCESS_KEY: 'secret' };
    assert.deepEqual(loadConfig({ ...s3, S3_ENDPOINT: 'http://minio:9000', S3_ALIAS_HOST: 'files.example/media' }).media, {
      storage: {
        kind: 's3',
        bucket: 'stoa-files',
        endpoint: 'http://minio:9000',
        region: 'us-east-1',
        accessKeyId: 'AKIA1',
        secretAccessKey: 'secret',
        forcePathStyle: true,
        openTimeoutMs: 5000,
        readTimeoutMs: 5000,
      },
      processing,
      publicUrl: 'https://files.example/media',
    });
    const aws = loadConfig({ ...s3, S3_REGION: 'eu-west-3' }).media.storage;
    assert.ok(aws.kind === 's3' && !aws.forcePathStyle && aws.endpoint === undefined && aws.region === 'eu-west-3');
    const vhost = loadConfig({ ...s3, S3_ENDPOINT: 'https://s3.provider.example', S3_OVERRIDE_PATH_STYLE: 'true' }).media.storage;
    assert.ok(vhost.kind === 's3' && !vhost.forcePathStyle);
  });

  it('never echoes a secret it refuses', () => {
    assert.throws(
      () => loadConfig({ S3_ENABLED: 'true', S3_BUCKET: 'b-1', AWS_ACCESS_KEY_ID: 'k', AWS_SECRET_ACCESS_KEY: 'x'.repeat(300) }),
      (e: unknown) => e instanceof ConfigError && e.variable === 'AWS_SECRET_ACCESS_KEY' && !e.message.includes('xxxx') && /300 characters/.test(e.message),
    );
  });

  const bad: [Record<string, string>, string, RegExp][] = [
    [{ PORT: 'eighty' }, 'PORT', /expected number/],
    [{ PORT: '70000' }, 'PORT', /65535/],
    [{ BASE_URL: 'ftp://x.example' }, 'BASE_URL', /http or https/],
    [{ BASE_URL: 'https://x.example/sub' }, 'BASE_URL', /without a path/],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL', /postgres/],
    [{ REGISTRATIONS: 'sometimes' }, 'REGISTRATIONS', /closed/],
    [{ FEDERATION_ALLOW_PRIVATE: 'maybe' }, 'FEDERATION_ALLOW_PRIVATE', /loopback/],
    [{ FEDERATION_ALLOW_PRIVATE: '10.0.0.0/33' }, 'FEDERATION_ALLOW_PRIVATE', /CIDR/],
    [{ VERIFY_THREADS_MIN: '4', VERIFY_THREADS_MAX: '2' }, 'VERIFY_THREADS_MAX', /at least VERIFY_THREADS_MIN/],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL', /info/],
    [{ METRICS_TOKEN: 'short' }, 'METRICS_TOKEN', /at least 16/],
    [{ METRICS_LISTEN: '9394' }, 'METRICS_LISTEN', /host:port/],
    [{ METRICS_LISTEN: '127.0.0.1:99999' }, 'METRICS_LISTEN', /65535/],
    [{ S3_ENABLED: 'true' }, 'S3_BUCKET', /must be set when S3_ENABLED/],
    [{ S3_ENABLED: 'true', S3_BUCKET: 'Not_A_Bucket' }, 'S3_BUCKET', /bucket name/],
    [{ S3_ENABLED: 'true', S3_BUCKET: 'files', AWS_ACCESS_KEY_ID: 'k' }, 'AWS_SECRET_ACCESS_KEY', /with its pair/],
    [{ S3_ENDPOINT: 'minio:9000' }, 'S3_ENDPOINT', /url/i],
    [{ S3_ALIAS_HOST: 'https://files.example' }, 'S3_ALIAS_HOST', /host name/],
    [{ S3_READ_TIMEOUT: '0' }, 'S3_READ_TIMEOUT', /1/],
    [{ MAX_BODY_BYTES_IN_FLIGHT: String(512 * 1024) }, 'MAX_BODY_BYTES_IN_FLIGHT', /at least the largest body limit \(1048576\)/],
    [{ STOA_PROCESSES: '0' }, 'STOA_PROCESSES', /1/],
    [{ STOA_PROCESSES: 'two' }, 'STOA_PROCESSES', /expected number/],
    [{ STOA_RESTART_PERIOD_MS: '10' }, 'STOA_RESTART_PERIOD_MS', /1000/],
  ];
  for (const [env, variable, rule] of bad) {
    it(`refuses ${JSON.stringify(env)} naming ${variable}`, () => {
      assert.throws(
        () => loadConfig(env),
        (e: unknown) => {
          assert.ok(e instanceof ConfigError);
          assert.equal(e.variable, variable);
          assert.match(e.message, rule);
          return true;
        },
      );
    });
  }

  it('stops start-up with one clear line on a bad value', () => {
    const r = spawnSync(process.execPath, [MAIN], {
      env: { ...process.env, PORT: 'eighty', STOA_DATA_DIR: '/nonexistent' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    assert.equal(r.status, 78);
    const lines = r.stderr.trim().split('\n');
    assert.equal(lines.length, 1);
    assert.match(lines[0]!, /^Invalid configuration: PORT .*"eighty"/);
  });
});
