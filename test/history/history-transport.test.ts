// Transport, auth and trust (reference/history.md P14, P27–P35): what each answer of a misbehaving origin makes of
// the job. Fetches are signed and ask for AS2; 401/403/404/410 are lasting; 429 and 503 back off as the origin asks
// (the whole origin), other failures exponentially; nothing crosses to another origin; size and time are capped
// while the body streams.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FED_ENV } from '../support/api.js';
import { remoteAccount, runHistory, setBareIri } from '../support/history-harness.js';
import { gzipBomb, hugePage, slowloris, startHistoryOrigin, type HistoryOrigin, type OriginRoute } from '../support/history-origin.js';
import { eventually } from '../support/wait.js';
import { startTestServer, type TestServer } from '../support/server.js';

const PUBLIC = 'https://www.w3.org/ns/activitystreams#Public';
const MINUTE = 60_000;

describe('remote history: transport and trust (P14, P27–P35)', () => {
  let s: TestServer;
  let o: HistoryOrigin;
  let cdn: HistoryOrigin;
  let n = 0;

  before(async () => {
    s = await startTestServer(FED_ENV);
    o = await startHistoryOrigin();
    cdn = await startHistoryOrigin();
  });
  after(async () => {
    await o.close();
    await cdn.close();
    await s.stop();
  });

  /** A fresh actor whose outbox answers `route`. */
  async function outbox(route: OriginRoute) {
    const name = `t${++n}`;
    const id = o.actor(name);
    const path = `/users/${name}/outbox`;
    o.serve(path, route);
    return { name, id, path, account: await remoteAccount(s, id) };
  }

  const page = (id: string, items: unknown[] = [], extra: Record<string, unknown> = {}) => ({
    json: { id: `${id}/outbox`, type: 'OrderedCollectionPage', orderedItems: items, ...extra },
  });
  const create = (id: string, i: number) => ({
    id: `${id}/statuses/${i}/activity`,
    type: 'Create',
    actor: id,
    to: [PUBLIC],
    object: { id: `${id}/statuses/${i}`, type: 'Note', attributedTo: id, to: [PUBLIC], content: `<p>post ${i}</p>`, published: '2024-01-01T00:00:00Z' },
  });

  const assertBackoff = (outcome: unknown, reason: string, originWide: boolean, from: number, to: number) => {
    const o = outcome as { kind: string; reason: string; originWide: boolean; retryAt: Date };
    assert.equal(o.kind, 'backoff', JSON.stringify(outcome));
    assert.equal(o.reason, reason);
    assert.equal(o.originWide, originWide);
    const at = o.retryAt.getTime();
    assert.ok(at >= from && at <= to, `retryAt ${o.retryAt.toISOString()} not within ${new Date(from).toISOString()} … ${new Date(to).toISOString()}`);
  };

  it('P27, P30: fetches are signed as the instance actor and ask for AS2; an origin demanding signatures answers them', async () => {
    o.requireSignature = true;
    try {
      const a = await outbox({ ...page(`${o.url}/users/t${n + 1}`), contentType: 'application/ld+json; profile="https://www.w3.org/ns/activitystreams"' });
      assert.deepEqual((await runHistory(s, a.account)).outcome, { kind: 'complete' });
      const h = o.headers(a.path)!;
      assert.match(String(h.signature), /keyId="[^"]+\/actor#main-key"/);
      assert.match(String(h.accept), /^application\/activity\+json, application\/ld\+json; profile="https:\/\/www\.w3\.org\/ns\/activitystreams"/);
    } finally {
      o.requireSignature = false;
    }
  });

  it('P28, P29: 401 and 403 are forbidden, 404 not found, 410 gone: lasting, not retried', async () => {
    for (const [status, reason] of [
      [401, 'forbidden'],
      [403, 'forbidden'],
      [404, 'not_found'],
      [410, 'gone'],
    ] as const) {
      const a = await outbox({ status, json: { error: 'no' } });
      assert.deepEqual((await runHistory(s, a.account)).outcome, { kind: 'unsupported', reason }, `HTTP ${status}`);
    }
  });

  it('P34: 429 with X-RateLimit-Reset (ISO 8601 with microseconds, as Mastodon sends it) backs the origin off until then', async () => {
    const reset = new Date(Date.now() + 17 * MINUTE);
    const iso = reset.toISOString().replace('Z', '123Z'); // 2026-…T…:…:….456123Z
    const a = await outbox({ status: 429, json: { error: 'Too many requests' }, headers: { 'x-ratelimit-reset': iso } });
    const { outcome, ledger } = await runHistory(s, a.account);
    assertBackoff(outcome, 'rate_limited', true, reset.getTime() - 1000, reset.getTime() + 1000);
    assert.equal(ledger.pages.length, 0);
  });

  it('P34: Retry-After as seconds (GoToSocial 503: 30, honoured as named), as an HTTP date, or far off (clamped to a day)', async () => {
    let t = Date.now();
    const busy = await outbox({ status: 503, body: 'busy', contentType: 'text/plain', headers: { 'retry-after': '30' } });
    assertBackoff((await runHistory(s, busy.account)).outcome, 'server_error', true, t + 30_000, Date.now() + 30_000);

    const when = new Date(Math.ceil((Date.now() + 2 * 3_600_000) / 1000) * 1000);
    const dated = await outbox({ status: 429, body: '', headers: { 'retry-after': when.toUTCString() } });
    assertBackoff((await runHistory(s, dated.account)).outcome, 'rate_limited', true, when.getTime(), when.getTime());

    t = Date.now();
    const far = await outbox({ status: 429, body: '', headers: { 'retry-after': String(30 * 86_400) } });
    assertBackoff((await runHistory(s, far.account)).outcome, 'rate_limited', true, t + 86_400_000 - 1000, Date.now() + 86_400_000);

    // A time already past, or none at all: the 5 s floor, so an origin is not asked again at once.
    for (const retryAfter of ['Wed, 21 Oct 2015 07:28:00 GMT', '0']) {
      t = Date.now();
      const past = await outbox({ status: 429, body: '', headers: { 'retry-after': retryAfter } });
      assertBackoff((await runHistory(s, past.account)).outcome, 'rate_limited', true, t + 5_000, Date.now() + 5_000);
    }
  });

  it('P34: without a time named, the backoff grows with the attempts (±20 % jitter); a 500 holds only this job', async () => {
    const a = await outbox({ status: 500, body: 'oops', contentType: 'text/plain' });
    const t = Date.now();
    const { outcome } = await runHistory(s, a.account, { attempts: 3 });
    assertBackoff(outcome, 'server_error', false, t + 8 * MINUTE * 0.8 - 1000, Date.now() + 8 * MINUTE * 1.2 + 1000);
  });

  it('transport failures (the origin gone: connection refused) back off as transport', async () => {
    const other = await startHistoryOrigin();
    const account = await remoteAccount(s, other.actor('leaving'));
    await other.close();
    const t = Date.now();
    assertBackoff((await runHistory(s, account)).outcome, 'transport', false, t + MINUTE - 1000, Date.now() + 2 * MINUTE);
  });

  it('P31: redirects within the origin are followed (3 at most); to another origin refused; a document with a foreign id refused', async () => {
    const a = await outbox({ status: 301, body: '', headers: { location: '/moved/outbox' } });
    o.serve('/moved/outbox', page(a.id, [create(a.id, 1)]));
    const moved = await runHistory(s, a.account);
    assert.deepEqual(moved.outcome, { kind: 'complete' });
    assert.equal(moved.ledger.imported, 1);

    const b = await outbox({ status: 302, body: '', headers: { location: '/r1' } });
    o.serve('/r1', { status: 302, body: '', headers: { location: '/r2' } });
    o.serve('/r2', { status: 302, body: '', headers: { location: '/r3' } });
    o.serve('/r3', { status: 302, body: '', headers: { location: '/r4' } });
    o.serve('/r4', page(b.id));
    assert.equal((await runHistory(s, b.account)).outcome.kind, 'unsupported');
    assert.equal(o.requests('/r4'), 0);

    const c = await outbox({ status: 302, body: '', headers: { location: `${cdn.url}/outbox` } });
    cdn.serve('/outbox', page(c.id, [create(c.id, 1)]));
    assert.deepEqual((await runHistory(s, c.account)).outcome, { kind: 'unsupported', reason: 'cross_origin' });
    assert.equal(cdn.requests('/outbox'), 0);

    const d = await outbox({ json: { id: `${cdn.url}/outbox`, type: 'OrderedCollection', orderedItems: [] } });
    assert.deepEqual((await runHistory(s, d.account)).outcome, { kind: 'unsupported', reason: 'cross_origin' });
  });

  it('P32: an outbox or a next page on another host (a CDN) is refused without asking it', async () => {
    const name = `t${++n}`;
    const id = o.actor(name, { outbox: `${cdn.url}/outboxes/${name}` });
    cdn.serve(`/outboxes/${name}`, page(id, [create(id, 1)]));
    const account = await remoteAccount(s, id);
    assert.deepEqual((await runHistory(s, account)).outcome, { kind: 'unsupported', reason: 'cross_origin' });
    assert.equal(cdn.requests(`/outboxes/${name}`), 0);

    const a = await outbox({});
    o.serve(a.path, page(a.id, [create(a.id, 1)], { next: `${cdn.url}/outboxes/${a.name}?page=2` }));
    const { outcome, ledger } = await runHistory(s, a.account);
    assert.deepEqual(outcome, { kind: 'unsupported', reason: 'cross_origin' });
    assert.equal(ledger.imported, 1);
    assert.equal(cdn.requests(`/outboxes/${a.name}?page=2`), 0);
  });

  it('P14: a page over 2 MiB is refused: by Content-Length before reading, streamed without it, and as a gzip bomb', async () => {
    for (const route of [hugePage(3 << 20), hugePage(3 << 20, { chunked: true }), gzipBomb()]) {
      const a = await outbox(route);
      assert.deepEqual((await runHistory(s, a.account)).outcome, { kind: 'unsupported', reason: 'too_large' });
    }
    // Just under the cap is read.
    const fits = await outbox(hugePage((2 << 20) - 4096));
    assert.deepEqual((await runHistory(s, fits.account)).outcome, { kind: 'complete' });
  });

  it('P35: a slowloris page ends the job as a timeout after the fetch’s time; an aborted job stops at once as partial', async () => {
    const a = await outbox(slowloris());
    const t = Date.now();
    const { outcome, ledger } = await runHistory(s, a.account, { runner: s.app.federation.history.withLimits({ fetchMs: 1500 }) });
    const took = Date.now() - t;
    assert.equal((outcome as { kind: string }).kind, 'backoff');
    assert.equal((outcome as { reason: string }).reason, 'timeout');
    assert.ok(took >= 1400 && took < 5000, `took ${took} ms`);
    assert.equal(ledger.pages.length, 0);

    const b = await outbox(slowloris());
    const stop = new AbortController();
    const running = runHistory(s, b.account, { signal: stop.signal });
    await eventually(() => assert.equal(o.requests(b.path), 1)); // the fetch is under way (a slowloris never answers)
    const aborted = Date.now();
    stop.abort();
    assert.deepEqual((await running).outcome, { kind: 'partial' });
    assert.ok(Date.now() - aborted < 1000);
  });

  it('P35: a job whose time ends while it fetches a page’s objects stops as partial, the page left to be read again', async () => {
    await setBareIri(s, true);
    try {
      const a = await outbox({});
      const items = [1, 2, 3].map((i) => ({ id: `${a.id}/statuses/${i}/activity`, type: 'Create', actor: a.id, object: `${a.id}/statuses/${i}` }));
      o.serve(a.path, page(a.id, items));
      for (const i of [1, 2, 3]) o.serve(`/users/${a.name}/statuses/${i}`, { json: create(a.id, i).object, delayMs: 500 });
      const { outcome, ledger } = await runHistory(s, a.account, { runner: s.app.federation.history.withLimits({ jobMs: 800 }) });
      assert.deepEqual(outcome, { kind: 'partial' });
      assert.equal(ledger.pages.length, 0);
      assert.equal(ledger.cursor, a.account.outboxUrl);
    } finally {
      await setBareIri(s, false);
    }
  });

  it('a rate-limited object fetch backs the job off and leaves the page to be read again', async () => {
    await setBareIri(s, true);
    try {
      const a = await outbox({});
      o.serve(a.path, page(a.id, [{ id: `${a.id}/statuses/1/activity`, type: 'Create', actor: a.id, object: `${a.id}/statuses/1` }]));
      o.serve(`/users/${a.name}/statuses/1`, { status: 429, body: '', headers: { 'retry-after': '120' } });
      const t = Date.now();
      const { outcome, ledger } = await runHistory(s, a.account);
      assertBackoff(outcome, 'rate_limited', true, t + 2 * MINUTE - 1000, Date.now() + 2 * MINUTE + 1000);
      assert.equal(ledger.pages.length, 0);
      assert.equal(ledger.cursor, a.account.outboxUrl);
    } finally {
      await setBareIri(s, false);
    }
  });
});
