// The streaming clients connected to this node (WebSocket and SSE alike), their subscriptions, and what closes
// them: their token revoked, their member disabled, or the node stopping. One heartbeat timer serves every SSE
// client of the node. Fan-out (fanout.ts) reads who listens from here.
import type { CachedToken } from '../../oauth/token-cache.js';
import { coversAny } from '../../oauth/scopes.js';
import type { AuthEvent } from '../../store/auth-events.js';
import type { StreamTargets } from '../../store/stream-audience.js';
import type { Subscription } from './channels.js';

/** One connection, whatever carries it. */
export interface StreamClient {
  readonly accountId: string;
  readonly userId: string;
  readonly tokenId: string;
  readonly appId: string;
  readonly scopes: readonly string[];
  readonly subs: Map<string, Subscription>;
  /** Sends one event on one of its streams (payload: the JSON text, a bare id for delete, none for filters_changed). */
  send(stream: readonly string[], event: string, payload: string | undefined): void;
  /** SSE only: a comment line that keeps proxies from closing an idle stream. */
  heartbeat?(): void;
  close(): void;
}

export function clientIdentity(t: CachedToken) {
  const user = t.record.user!;
  return { accountId: user.accountId, userId: user.userId, tokenId: t.record.tokenId, appId: t.record.appId, scopes: t.record.scopes };
}

/** The user stream carries notifications only for a token that may read them (Mastodon's channelsForUserStream). */
export function readsNotifications(c: StreamClient): boolean {
  return coversAny(c.scopes, ['read:notifications']);
}

export class StreamHub {
  readonly clients = new Set<StreamClient>();
  private heartbeat: NodeJS.Timeout | null = null;
  /** Whether this node hears the event channel now (the health endpoint says so). */
  listening = true;

  constructor(
    private readonly isDisabled: (userId: string) => Promise<boolean>,
    private readonly heartbeatMs: number,
  ) {}

  add(c: StreamClient): void {
    this.clients.add(c);
    if (c.heartbeat && !this.heartbeat) {
      this.heartbeat = setInterval(() => {
        for (const x of this.clients) x.heartbeat?.();
      }, this.heartbeatMs);
      this.heartbeat.unref();
    }
  }

  remove(c: StreamClient): void {
    this.clients.delete(c);
    if (this.heartbeat && ![...this.clients].some((x) => x.heartbeat)) {
      clearInterval(this.heartbeat);
      this.heartbeat = null;
    }
  }

  /** Who listens, by kind of stream, for the audience query. */
  targets(): StreamTargets & { readonly any: boolean } {
    const home = new Set<string>();
    const lists = new Set<string>();
    const pub = new Set<string>();
    for (const c of this.clients) {
      for (const s of c.subs.values()) {
        if (s.channel === 'user') home.add(c.accountId);
        else if (s.channel === 'list') lists.add(s.list!);
        else if (s.channel.startsWith('public') || s.channel.startsWith('hashtag')) pub.add(c.accountId);
      }
    }
    return { home: [...home], lists: [...lists], public: [...pub], any: home.size + lists.size + pub.size > 0 };
  }

  /** The clients of one account. */
  *of(accountId: string): Iterable<StreamClient> {
    for (const c of this.clients) if (c.accountId === accountId) yield c;
  }

  /**
   * An authentication change heard on the auth channel (every node hears it): a revoked token's or grant's clients
   * close at once; for a member's change (a profile edit, a count, or being disabled) the member is read again and
   * their clients closed if disabled.
   */
  onAuthEvent(e: AuthEvent): void {
    if (e.kind === 'token') {
      for (const c of [...this.clients]) if (c.tokenId === e.id) c.close();
    } else if (e.kind === 'grant') {
      for (const c of [...this.clients]) if (c.userId === e.userId && c.appId === e.appId) c.close();
    } else if ([...this.clients].some((c) => c.userId === e.id)) {
      void this.isDisabled(e.id).then(
        (disabled) => {
          if (disabled) for (const c of [...this.clients]) if (c.userId === e.id) c.close();
        },
        () => undefined,
      );
    }
  }

  closeAll(): void {
    for (const c of [...this.clients]) c.close();
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
  }
}
