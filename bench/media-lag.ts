// Issue 38's second figure: the server's event-loop lag while 20 image uploads and 2 video transcodes run. Lag is
// measured inside the Stoa process by its own metrics (prom-client's default `nodejs_eventloop_lag_p99_seconds`,
// a monitorEventLoopDelay histogram that every scrape reads and resets): one scrape to reset it, one after 5 idle
// seconds (the machine's own noise), then one once the last transcode is done, covering exactly the load.
// That histogram records the time between its timer's firings, the 10 ms interval (prom-client's default
// eventLoopMonitoringPrecision) included: an idle loop reads ~10 ms. The lag is what exceeds it.
import { randomBytes } from 'node:crypto';
import { openAsBlob } from 'node:fs';
import path from 'node:path';
import { pino } from 'pino';
import { AppStore } from '../src/store/oauth-apps.js';
import { TokenStore } from '../src/store/oauth-tokens.js';
import { Database } from '../src/store/db.js';
import type { BenchDatabase } from './database.js';
import type { BenchImage } from './media-fixtures.js';
import { startStoa } from './processes.js';

/** prom-client's default `eventLoopMonitoringPrecision`: the histogram's timer interval, inside every sample. */
const RESOLUTION_MS = 10;
const IDLE_MS = 5_000;

export interface UploadLag {
  readonly uploads: number;
  readonly transcodes: number;
  /** From the first request to the last upload's answer, and to the last transcode done. */
  readonly uploadsSec: number;
  readonly transcodesSec: number;
  /** Lag beyond the 10 ms interval during the load, and over 5 idle seconds before it. */
  readonly lagP50Ms: number;
  readonly lagP99Ms: number;
  readonly lagMaxMs: number;
  readonly idleP99Ms: number;
}

/** A write:media token for the first user (the Owner Stoa creates at start-up). */
async function mediaToken(databaseUrl: string): Promise<string> {
  const db = new Database(databaseUrl, 1, pino({ level: 'silent' }));
  try {
    const user = await db.one<{ id: string }>('SELECT id FROM users ORDER BY id LIMIT 1');
    if (!user) throw new Error('no user to issue a token for');
    const { app } = await new AppStore(db).create({ name: 'bench-media', website: null, redirectUris: ['urn:ietf:wg:oauth:2.0:oob'], scopes: ['write:media'] });
    return (await new TokenStore(db).issue(app.id, user.id, ['write:media'])).token;
  } finally {
    await db.close();
  }
}

/** The gauges of one scrape, in seconds. */
async function lagGauges(url: string, token: string): Promise<Record<'p50' | 'p99' | 'max', number>> {
  const res = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET /metrics answered ${res.status}: ${text.slice(0, 200)}`);
  const gauge = (name: string) => {
    const m = new RegExp(`^${name} (\\S+)`, 'm').exec(text);
    if (!m) throw new Error(`GET /metrics has no ${name}`);
    return Number(m[1]);
  };
  return { p50: gauge('nodejs_eventloop_lag_p50_seconds'), p99: gauge('nodejs_eventloop_lag_p99_seconds'), max: gauge('nodejs_eventloop_lag_max_seconds') };
}

async function upload(url: string, token: string, file: string, type: string): Promise<{ status: number; id: string }> {
  const form = new FormData();
  form.append('file', await openAsBlob(file, { type }), path.basename(file));
  const res = await fetch(`${url}/api/v2/media`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  const body = (await res.json()) as { id?: string; error?: string };
  if (res.status !== 200 && res.status !== 202) throw new Error(`POST /api/v2/media ${path.basename(file)} answered ${res.status}: ${body.error}`);
  return { status: res.status, id: body.id! };
}

/** Polls GET /api/v1/media/:id until 200 (206 while the transcode runs). */
async function processed(url: string, token: string, id: string): Promise<void> {
  for (;;) {
    const res = await fetch(`${url}/api/v1/media/${id}`, { headers: { authorization: `Bearer ${token}` } });
    const body = await res.text();
    if (res.status === 200) return;
    if (res.status !== 206) throw new Error(`GET /api/v1/media/${id} answered ${res.status}: ${body.slice(0, 200)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

export async function measureUploadLag(db: BenchDatabase, images: readonly BenchImage[], videos: readonly string[]): Promise<UploadLag> {
  const metricsToken = randomBytes(24).toString('hex');
  const stoa = await startStoa({ DATABASE_URL: db.url, STOA_DATA_DIR: path.join(db.dataDir, 'stoa-media'), LOG_LEVEL: 'info', METRICS_TOKEN: metricsToken });
  try {
    const token = await mediaToken(db.url);
    await lagGauges(stoa.url, metricsToken); // resets the histogram
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    const idle = await lagGauges(stoa.url, metricsToken); // and again: the next scrape covers the load only
    const t0 = performance.now();
    let uploadsDone = 0;
    const uploads = images.map(async (img) => {
      await upload(stoa.url, token, img.path, img.contentType);
      uploadsDone = performance.now();
    });
    const transcodes = videos.map(async (file) => {
      const { status, id } = await upload(stoa.url, token, file, 'video/webm');
      if (status !== 202) throw new Error(`a WebM upload answered ${status}, not 202: it was not queued for transcoding`);
      await processed(stoa.url, token, id);
    });
    await Promise.all([...uploads, ...transcodes]);
    const end = performance.now();
    const lag = await lagGauges(stoa.url, metricsToken);
    return {
      uploads: images.length,
      transcodes: videos.length,
      uploadsSec: (uploadsDone - t0) / 1000,
      transcodesSec: (end - t0) / 1000,
      lagP50Ms: lag.p50 * 1000 - RESOLUTION_MS,
      lagP99Ms: lag.p99 * 1000 - RESOLUTION_MS,
      lagMaxMs: lag.max * 1000 - RESOLUTION_MS,
      idleP99Ms: idle.p99 * 1000 - RESOLUTION_MS,
    };
  } finally {
    await stoa.stop();
  }
}
