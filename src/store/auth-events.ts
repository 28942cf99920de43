// Cross-node invalidation of authentication caches through PostgreSQL LISTEN/NOTIFY. Writers send a notification
// in the same statement (or transaction) that changes a token or a user, so it is delivered exactly when the change
// commits. Every node keeps one dedicated connection listening; while it is down, nobody may trust a cache (a
// notification could be missed), so onReset fires on every disconnect and again on reconnect. The same connection
// hears WORK_CHANNEL: queued inbox jobs and deliveries, so that a node's sleeping actors wake for work another node
// queued; STREAM_CHANNEL, the events streamed to clients connected to this node; and CACHE_CHANNEL, what the
// rendered-status cache must drop.
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import pg from 'pg';
import { exponentialBackoff } from '../../actors/policy.js';
import { ExitSignal, type ExitReason, type Process } from '../../actors/process.js';
import type { Logger } from '../log.js';
import type { Database } from './db.js';

export const AUTH_CHANNEL = 'stoa_auth';
/**
 * Payloads `inbox` (a job queued), `delivery:<host>` (deliveries queued for that host), `push:<host>` (Web Push
 * messages queued for that push service host), `history:<origin>` (a
 * remote history job queued or given back on that origin) and `settings:<key>` (a cached setting changed), sent by
 * the stores.
 */
export const WORK_CHANNEL = 'stoa_work';
/** What clients are streamed (store/stream-events.ts parses it); raised by triggers (migration 046). */
export const STREAM_CHANNEL = 'stoa_stream';

/**
 * Raised by triggers: `s:<id>` a status or its attachments changed, `a:<id>` an account (migration 048), `f:<id>` an
 * account's content filters (migration 050).
 */
export const CACHE_CHANNEL = 'stoa_cache';

/** What a node's rendered statuses may no longer show. */
export type CacheEvent = { readonly kind: 'status' | 'account' | 'filters'; readonly id: string };

const CACHE_PAYLOAD = /^([saf]):(\d{1,20})$/;
const CACHE_KINDS = { s: 'status', a: 'account', f: 'filters' } as const;

function parseCache(p: string): CacheEvent | undefined {
  const m = CACHE_PAYLOAD.exec(p);
  if (!m) return undefined;
  return { kind: CACHE_KINDS[m[1] as keyof typeof CACHE_KINDS], id: m[2]! };
}

/** Work queued by some node (this one included: a node hears its own notifications). */
export type WorkEvent =
  | { readonly kind: 'inbox' }
  | { readonly kind: 'delivery'; readonly host: string }
  | { readonly kind: 'push'; readonly host: string }
  | { readonly kind: 'history'; readonly origin: string }
  | { readonly kind: 'settings'; readonly key: string }
  | { readonly kind: 'scheduled' }
  /** A status queued for its link's preview card (migration 076). */
  | { readonly kind: 'cards' }
  | { readonly kind: 'media' }
  /** A post's home-feed fan-out queued as a job (migration 078), or given back. */
  | { readonly kind: 'homefeed' };

const WORK_PAYLOAD = /^(?:(inbox)|delivery:([^\s]{1,300})|history:([^\s]{1,300})|push:([^\s]{1,300}))$/;
const SETTINGS_PAYLOAD = /^settings:([\w-]{1,64})$/;

function parseWork(p: string): WorkEvent | undefined {
  const s = SETTINGS_PAYLOAD.exec(p);
  if (s) return { kind: 'settings', key: s[1]! };
  if (p === 'scheduled') return { kind: 'scheduled' };
  if (p === 'cards') return { kind: 'cards' };
  if (p === 'media') return { kind: 'media' };
  if (p === 'homefeed') return { kind: 'homefeed' };
  const m = WORK_PAYLOAD.exec(p);
  if (!m) return undefined;
  if (m[1]) return { kind: 'inbox' };
  if (m[2]) return { kind: 'delivery', host: m[2] };
  return m[4] ? { kind: 'push', host: m[4] } : { kind: 'history', origin: m[3]! };
}

/**
 * What changed: one token (revoked), one member's grant to one app (revoked from the settings page), or everything
 * about one member (disabled, profile edited).
 */
export type AuthEvent =
  | { readonly kind: 'token'; readonly id: string }
  | { readonly kind: 'user'; readonly id: string }
  | { readonly kind: 'grant'; readonly userId: string; readonly appId: string };

/**
 * Names one publication: the statement making a change notifies `<kind>:<ids>|<nonce>`, and every node answers
 * `ack:<nonce>:<node>` once it has applied it, so the publisher can tell when all have.
 */
export function newNonce(): string {
  return randomBytes(12).toString('base64url');
}

/**
 * Tells every node that what it caches about these accounts' members is stale (a follow or a post changes the
 * counts a cached verify_credentials shows). Run it inside the changing transaction where there is one, so it is
 * delivered when the change commits; accounts without a member are skipped by the join.
 */
export async function notifyMembersChanged(
  db: Database,
  q: { query(text: string, values?: unknown[]): Promise<unknown> },
  accountIds: readonly string[],
): Promise<void> {
  // This node drops its copies as the change commits, before the writer answers: its own listener hears the
  // notification a moment later, and the member's next request could come first (read-your-writes).
  db.afterCommit(() => db.onMembersChanged(accountIds));
  await q.query(`SELECT pg_notify('${AUTH_CHANNEL}', 'user:' || u.id || '|' || $2) FROM users u WHERE u.account_id = ANY($1::bigint[])`, [
    accountIds,
    newNonce(),
  ]);
}

const PAYLOAD = /^(token|user):(\d{1,20})\|([\w-]{1,32})$|^grant:(\d{1,20}):(\d{1,20})\|([\w-]{1,32})$|^ack:([\w-]{1,32}):([\w.:-]{1,80})$/;

type Message =
  | { readonly kind: 'event'; readonly event: AuthEvent; readonly nonce: string }
  | { readonly kind: 'ack'; readonly nonce: string; readonly node: string };

function parsePayload(p: string): Message | undefined {
  const m = PAYLOAD.exec(p);
  if (!m) return undefined;
  if (m[1]) return { kind: 'event', event: { kind: m[1] as 'token' | 'user', id: m[2]! }, nonce: m[3]! };
  if (m[4]) return { kind: 'event', event: { kind: 'grant', userId: m[4], appId: m[5]! }, nonce: m[6]! };
  return { kind: 'ack', nonce: m[7]!, node: m[8]! };
}

/**
 * The nodes alive now, by their listening connections (plus `self`, which counts even while reconnecting): work
 * leased by any other owner belongs to a node that is gone.
 */
export async function liveNodes(q: pg.Pool | pg.Client, self: string): Promise<string[]> {
  const r = await q.query<{ name: string }>(
    'SELECT application_name AS name FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE $1',
    [`${APP_NAME_PREFIX}%`],
  );
  return [...new Set([self, ...r.rows.map((x) => x.name.slice(APP_NAME_PREFIX.length))])];
}

export interface AuthEventHandlers {
  onEvent(e: AuthEvent): void;
  /** Work was queued (on WORK_CHANNEL). */
  onWork?(e: WorkEvent): void;
  /** A streaming event (STREAM_CHANNEL), its payload as sent. */
  onStream?(payload: string): void;
  /** Something a rendered status shows changed (CACHE_CHANNEL). */
  onCache?(e: CacheEvent): void;
  /**
   * The stream is (re)started or broken: drop or stop trusting everything cached, and on (re)connection look for
   * work queued while no notification could reach this node.
   */
  onReset(connected: boolean): void;
}

/** The longest a node's listener stays away between attempts: nodes are not declared gone within it. */
export const LISTENER_RECONNECT_MAX_MS = 5_000;
const reconnectDelay = exponentialBackoff({ baseMs: 100, maxMs: LISTENER_RECONNECT_MAX_MS });
const APP_NAME_PREFIX = 'stoa-auth ';
const ACK_TIMEOUT_MS = 2_000;

/**
 * A new name for this node among the listeners (pg_stat_activity.application_name), unique per process: decided once
 * at start, before the actors that lease work under it.
 */
export function newNodeName(): string {
  // PostgreSQL keeps 63 bytes of application_name: prefix (10) + host (≤ 24) + pid (≤ 7) + random (8) + 2 fit.
  return `${os.hostname().slice(0, 24)}:${process.pid}:${randomBytes(4).toString('hex')}`.replace(/[^\w.:-]/g, '_');
}

interface Collector {
  readonly heard: Set<string>;
  check: () => void;
}

export class AuthEventListener implements Process {
  readonly name = 'auth-events';
  private client: pg.Client | null = null;
  private stopped = false;
  private attempt = 0;
  private timer: NodeJS.Timeout | null = null;
  private readonly exit = new ExitSignal();
  private readonly collectors = new Map<string, Collector>();
  connected = false;

  private constructor(
    private readonly connectionString: string,
    /** This node's name among the listeners (newNodeName). */
    readonly node: string,
    private readonly handlers: AuthEventHandlers,
    private readonly log: Logger,
  ) {}

  /** Resolves once listening, so a node never serves from a cache it cannot invalidate. */
  static async start(connectionString: string, node: string, handlers: AuthEventHandlers, log: Logger): Promise<AuthEventListener> {
    const l = new AuthEventListener(connectionString, node, handlers, log);
    await l.connect();
    return l;
  }

  get alive(): boolean {
    return !this.exit.exited;
  }

  onExit(fn: (reason: ExitReason) => void): void {
    this.exit.on(fn);
  }

  /**
   * Makes a change that notifies AUTH_CHANNEL (run gets the nonce to put in the payload) and resolves once every
   * node listening at commit has acknowledged it, that is, has dropped what it cached: the very next request on
   * any node sees the change. A node that does not answer within two seconds (dying, partitioned) is logged and
   * not waited for; its connection loss empties its cache anyway.
   */
  async publish<T>(run: (nonce: string) => Promise<T>, notified: (result: T) => boolean): Promise<T> {
    const nonce = newNonce();
    const c: Collector = { heard: new Set(), check: () => undefined };
    this.collectors.set(nonce, c); // before the change: an acknowledgement may arrive before the statement returns
    try {
      const result = await run(nonce);
      if (notified(result) && this.connected) await this.acknowledged(c);
      return result;
    } finally {
      this.collectors.delete(nonce);
    }
  }

  private async acknowledged(c: Collector): Promise<void> {
    const client = this.client;
    if (!client) return;
    const expected = await liveNodes(client, this.node);
    const missing = () => expected.filter((n) => !c.heard.has(n));
    if (missing().length === 0) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.log.warn({ missing: missing() }, 'auth event not acknowledged by every node in time');
        resolve();
      }, ACK_TIMEOUT_MS);
      c.check = () => {
        if (missing().length > 0) return;
        clearTimeout(timer);
        resolve();
      };
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    const c = this.client;
    this.client = null;
    this.setConnected(false);
    if (c) await c.end().catch(() => undefined);
    this.exit.fire({ kind: 'shutdown' });
  }

  private async connect(): Promise<void> {
    const c = new pg.Client({
      connectionString: this.connectionString,
      connectionTimeoutMillis: 10_000,
      keepAlive: true,
      application_name: APP_NAME_PREFIX + this.node,
    });
    c.on('notification', (n) => {
      if (n.channel === WORK_CHANNEL && n.payload) {
        const w = parseWork(n.payload);
        if (w) this.handlers.onWork?.(w);
        return;
      }
      if (n.channel === CACHE_CHANNEL && n.payload) {
        const e = parseCache(n.payload);
        if (e) this.handlers.onCache?.(e);
        return;
      }
      if (n.channel === STREAM_CHANNEL && n.payload) {
        this.handlers.onStream?.(n.payload);
        return;
      }
      if (n.channel !== AUTH_CHANNEL || !n.payload) return;
      const m = parsePayload(n.payload);
      if (!m) return;
      if (m.kind === 'ack') {
        const col = this.collectors.get(m.nonce);
        if (col) {
          col.heard.add(m.node);
          col.check();
        }
        return;
      }
      this.handlers.onEvent(m.event);
      // Dropped from the cache above, synchronously: now the sender may tell its client the change is everywhere.
      c.query('SELECT pg_notify($1, $2)', [AUTH_CHANNEL, `ack:${m.nonce}:${this.node}`]).catch(() => undefined);
    });
    // Until LISTEN has succeeded the client is not ours (this.client !== c), so these ignore failures of the attempt.
    c.on('error', (err) => this.lost(c, err));
    c.on('end', () => this.lost(c, undefined));
    try {
      await c.connect();
      await c.query(`LISTEN ${AUTH_CHANNEL}; LISTEN ${WORK_CHANNEL}; LISTEN ${STREAM_CHANNEL}; LISTEN ${CACHE_CHANNEL}`);
    } catch (e) {
      c.end().catch(() => undefined);
      throw e;
    }
    if (this.stopped) {
      await c.end().catch(() => undefined);
      return;
    }
    this.client = c;
    this.attempt = 0;
    this.setConnected(true);
  }

  private lost(c: pg.Client, err: Error | undefined): void {
    if (this.client !== c || this.stopped) return;
    this.client = null;
    this.setConnected(false);
    this.log.warn({ err }, 'auth event connection lost; caches bypassed until it is back');
    c.end().catch(() => undefined);
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    const delay = reconnectDelay(++this.attempt) ?? LISTENER_RECONNECT_MAX_MS;
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.stopped) return;
      this.connect().catch((err: unknown) => {
        this.log.warn({ err, attempt: this.attempt }, 'auth event reconnect failed');
        if (!this.stopped) this.scheduleReconnect();
      });
    }, delay);
    this.timer.unref();
  }

  private setConnected(v: boolean): void {
    this.connected = v;
    this.handlers.onReset(v);
  }
}
