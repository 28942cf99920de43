// Cross-node invalidation of authentication caches through PostgreSQL LISTEN/NOTIFY. Writers send a notification
// in the same statement (or transaction) that changes a token or a user, so it is delivered exactly when the change
// commits. Every node keeps one dedicated connection listening; while it is down, nobody may trust a cache (a
// notification could be missed), so onReset fires on every disconnect and again on reconnect.
import pg from 'pg';
import { exponentialBackoff } from '../../actors/policy.js';
import { ExitSignal, type ExitReason, type Process } from '../../actors/process.js';
import type { Logger } from '../log.js';

export const AUTH_CHANNEL = 'stoa_auth';

/** What changed: one token (revoked), or everything about one user (disabled, profile edited, access revoked). */
export type AuthEvent = { readonly kind: 'token'; readonly id: string } | { readonly kind: 'user'; readonly id: string };

export function eventPayload(e: AuthEvent): string {
  return `${e.kind}:${e.id}`;
}

function parsePayload(p: string): AuthEvent | undefined {
  const m = /^(token|user):(\d{1,20})$/.exec(p);
  return m ? { kind: m[1] as AuthEvent['kind'], id: m[2]! } : undefined;
}

export interface AuthEventHandlers {
  onEvent(e: AuthEvent): void;
  /** The stream is (re)started or broken: drop or stop trusting everything cached. */
  onReset(connected: boolean): void;
}

const reconnectDelay = exponentialBackoff({ baseMs: 100, maxMs: 5_000 });
const ECHO_TIMEOUT_MS = 1_000;

export class AuthEventListener implements Process {
  readonly name = 'auth-events';
  private client: pg.Client | null = null;
  private stopped = false;
  private attempt = 0;
  private timer: NodeJS.Timeout | null = null;
  private readonly exit = new ExitSignal();
  private readonly echoes = new Map<string, (() => void)[]>();
  connected = false;

  private constructor(private readonly connectionString: string, private readonly handlers: AuthEventHandlers, private readonly log: Logger) {}

  /** Resolves once listening, so a node never serves from a cache it cannot invalidate. */
  static async start(connectionString: string, handlers: AuthEventHandlers, log: Logger): Promise<AuthEventListener> {
    const l = new AuthEventListener(connectionString, handlers, log);
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
   * Resolves when this node has heard its own notification back (or after a second): PostgreSQL signals every
   * listening node at the same commit, so by then the other nodes have been told as well.
   */
  awaitEcho(events: readonly AuthEvent[]): Promise<void> {
    if (!this.connected || events.length === 0) return Promise.resolve();
    return new Promise((resolve) => {
      let left = events.length;
      const timer = setTimeout(resolve, ECHO_TIMEOUT_MS);
      const done = () => {
        if (--left === 0) {
          clearTimeout(timer);
          resolve();
        }
      };
      for (const e of events) {
        const key = eventPayload(e);
        const list = this.echoes.get(key);
        if (list) list.push(done);
        else this.echoes.set(key, [done]);
      }
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    const c = this.client;
    this.client = null;
    this.setConnected(false);
    if (c) await c.end().catch(() => undefined);
    for (const list of this.echoes.values()) for (const fn of list) fn();
    this.echoes.clear();
    this.exit.fire({ kind: 'shutdown' });
  }

  private async connect(): Promise<void> {
    const c = new pg.Client({ connectionString: this.connectionString, connectionTimeoutMillis: 10_000, keepAlive: true });
    c.on('notification', (n) => {
      if (n.channel !== AUTH_CHANNEL || !n.payload) return;
      const e = parsePayload(n.payload);
      if (e) this.handlers.onEvent(e);
      const waiting = this.echoes.get(n.payload);
      if (waiting) {
        this.echoes.delete(n.payload);
        for (const fn of waiting) fn();
      }
    });
    // Until LISTEN has succeeded the client is not ours (this.client !== c), so these ignore failures of the attempt.
    c.on('error', (err) => this.lost(c, err));
    c.on('end', () => this.lost(c, undefined));
    try {
      await c.connect();
      await c.query(`LISTEN ${AUTH_CHANNEL}`);
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
    const delay = reconnectDelay(++this.attempt) ?? 5_000;
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
