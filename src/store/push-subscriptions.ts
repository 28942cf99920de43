// Web Push subscriptions (Mastodon's Web::PushSubscription): one per access token, replaced by a new POST, removed
// with the token (a trigger on revocation, migration 045) or when the push service says the endpoint is gone.
import type { Database } from './db.js';

export const PUSH_POLICIES = ['all', 'followed', 'follower', 'none'] as const;
export type PushPolicy = (typeof PUSH_POLICIES)[number];

export interface PushSubscription {
  readonly id: string;
  readonly accessTokenId: string;
  readonly accountId: string;
  readonly endpoint: string;
  readonly keyP256dh: string;
  readonly keyAuth: string;
  readonly sealedToken: string;
  readonly standard: boolean;
  /** The notification types pushed. */
  readonly alerts: readonly string[];
  readonly policy: PushPolicy;
}

export type NewPushSubscription = Omit<PushSubscription, 'id'>;

interface Row {
  [k: string]: unknown;
  id: string;
  access_token_id: string;
  account_id: string;
  endpoint: string;
  key_p256dh: string;
  key_auth: string;
  sealed_token: string;
  standard: boolean;
  alerts: string[];
  policy: PushPolicy;
}

const toSubscription = (r: Row): PushSubscription => ({
  id: r.id,
  accessTokenId: r.access_token_id,
  accountId: r.account_id,
  endpoint: r.endpoint,
  keyP256dh: r.key_p256dh,
  keyAuth: r.key_auth,
  sealedToken: r.sealed_token,
  standard: r.standard,
  alerts: r.alerts,
  policy: r.policy,
});

export class PushSubscriptionStore {
  constructor(private readonly db: Database) {}

  /** The token's subscription, replacing any it had (a new id, and nothing queued for the old one is sent). */
  async replace(s: NewPushSubscription): Promise<PushSubscription> {
    return this.db.tx(async () => {
      await this.db.exec('DELETE FROM web_push_subscriptions WHERE access_token_id = $1', [s.accessTokenId]);
      const r = await this.db.one<Row>(
        `INSERT INTO web_push_subscriptions (access_token_id, account_id, endpoint, host, key_p256dh, key_auth, sealed_token, standard, alerts, policy)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING *`,
        [
          s.accessTokenId,
          s.accountId,
          s.endpoint,
          new URL(s.endpoint).host.toLowerCase(),
          s.keyP256dh,
          s.keyAuth,
          s.sealedToken,
          s.standard,
          s.alerts,
          s.policy,
        ],
      );
      return toSubscription(r!);
    });
  }

  async ofToken(accessTokenId: string): Promise<PushSubscription | undefined> {
    const r = await this.db.one<Row>('SELECT * FROM web_push_subscriptions WHERE access_token_id = $1', [accessTokenId]);
    return r && toSubscription(r);
  }

  async byId(id: string): Promise<PushSubscription | undefined> {
    const r = await this.db.one<Row>('SELECT * FROM web_push_subscriptions WHERE id = $1', [id]);
    return r && toSubscription(r);
  }

  /** Changes what is pushed (PUT); undefined when the token has no subscription. */
  async update(accessTokenId: string, change: { alerts?: readonly string[]; policy?: PushPolicy }): Promise<PushSubscription | undefined> {
    const r = await this.db.one<Row>(
      `UPDATE web_push_subscriptions SET alerts = coalesce($2, alerts), policy = coalesce($3, policy), updated_at = now()
       WHERE access_token_id = $1 RETURNING *`,
      [accessTokenId, change.alerts ?? null, change.policy ?? null],
    );
    return r && toSubscription(r);
  }

  async removeOfToken(accessTokenId: string): Promise<void> {
    await this.db.exec('DELETE FROM web_push_subscriptions WHERE access_token_id = $1', [accessTokenId]);
  }

  /** The push service answered that the endpoint is gone (404, 410). */
  async remove(id: string): Promise<void> {
    await this.db.exec('DELETE FROM web_push_subscriptions WHERE id = $1', [id]);
  }
}
