// One push attempt: render the notification as Mastodon's payload, encrypt it for the subscription (aes128gcm, or
// the legacy aesgcm when the client did not ask for `standard`) and sign it with VAPID (both by web-push), POST it
// through the guarded client, and classify the answer: 2xx sent; any 4xx but 408 and 429 means the subscription is
// of no more use and it is deleted, as Mastodon does (404 from FCM and 410 from Mozilla for an expired one, 400 or
// 403 for one made for another key, 413 for a payload it will never take: kept, it would fail the same way on every
// notification); 429 waits for Retry-After; 408, 5xx, timeouts and network errors retry with backoff until the
// row's give-up time.
import webpush from 'web-push';
import type { DeliveryOutcome } from '../../actors/delivery-host.js';
import type { Config } from '../../config/schema.js';
import { unseal } from '../auth/sealed.js';
import { accountEntity } from '../entities/account.js';
import { FetchError, parseRetryAfter } from '../federation/fetch-errors.js';
import type { HttpClient } from '../federation/http-client.js';
import type { AccountStore } from '../store/accounts.js';
import type { PushDelivery, PushDeliveryStore } from '../store/push-deliveries.js';
import type { PushSubscriptionStore } from '../store/push-subscriptions.js';
import type { StatusStore } from '../store/statuses.js';
import { pushJson, pushPayload } from './push-message.js';
import { type VapidKeys, vapidSubject } from './vapid.js';

/** Mastodon's Web::PushNotificationWorker: a push service may hold a message 48 hours for an offline device. */
export const PUSH_TTL_SECONDS = 48 * 3600;

export interface PushSenderDeps {
  readonly config: Config;
  readonly http: HttpClient;
  readonly vapid: VapidKeys;
  /** The key the subscriptions' access tokens are sealed with. */
  readonly tokenKey: Buffer;
  readonly pushes: PushDeliveryStore;
  readonly subscriptions: PushSubscriptionStore;
  readonly accounts: AccountStore;
  readonly statuses: StatusStore;
}

export function pushSender(d: PushSenderDeps): (p: PushDelivery) => Promise<DeliveryOutcome> {
  const vapidDetails = { subject: vapidSubject(d.config), publicKey: d.vapid.publicKey, privateKey: d.vapid.privateKey };
  return async (p) => {
    // Read when sent, not when queued: a notification withdrawn, or from someone blocked or muted since, is not pushed.
    const n = await d.pushes.shown(p.accountId, p.notificationId);
    if (!n) return { kind: 'drop', error: 'notification no longer shown' };
    const from = await d.accounts.byId(n.fromAccountId);
    const token = unseal(d.tokenKey, p.sealedToken);
    if (!from || token === undefined) return { kind: 'drop', error: 'sender or token gone' };
    const status = n.statusId ? await d.statuses.byId(n.statusId) : undefined;
    const payload = pushJson(pushPayload({ notification: n, from, status, accessToken: token, icon: accountEntity(from, d.config).avatar_static }));
    const req = webpush.generateRequestDetails({ endpoint: p.inboxUrl, keys: { p256dh: p.keyP256dh, auth: p.keyAuth } }, payload, {
      vapidDetails,
      TTL: PUSH_TTL_SECONDS,
      urgency: 'normal',
      contentEncoding: p.standard ? 'aes128gcm' : 'aesgcm',
    });
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) headers[k] = String(v);
    try {
      const res = await d.http.request({ method: 'POST', url: p.inboxUrl, headers, body: req.body ?? Buffer.alloc(0) });
      const s = res.status;
      if (s >= 200 && s < 300) return { kind: 'delivered' };
      if (s === 429) return { kind: 'retry', error: 'HTTP 429', afterMs: parseRetryAfter(res.headers['retry-after']) };
      if (s >= 400 && s < 500 && s !== 408) {
        await d.subscriptions.remove(p.subscriptionId);
        return { kind: 'drop', error: `HTTP ${s}: subscription removed` };
      }
      if (s >= 300 && s < 400) return { kind: 'drop', error: `HTTP ${s}: push services do not redirect` };
      return { kind: 'retry', error: `HTTP ${s}` };
    } catch (e) {
      if (!(e instanceof FetchError)) throw e;
      if (e.kind === 'transient') return { kind: 'retry', error: e.message };
      if (e.kind === 'rate_limited') return { kind: 'retry', error: e.message, afterMs: e.retryAfterMs };
      return { kind: 'drop', error: e.message };
    }
  };
}
