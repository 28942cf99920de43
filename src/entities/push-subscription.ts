// Mastodon's WebPushSubscription entity (REST::WebPushSubscriptionSerializer: id, endpoint, standard, alerts,
// server_key, policy). Its id is a JSON number in Mastodon, written here digit for digit: our ids pass 2^53.
import type { PushSubscription } from '../store/push-subscriptions.js';

/** The alert names clients may set (Mastodon's Notification::TYPES), every one shown in the entity. */
export const PUSH_ALERT_TYPES = [
  'mention',
  'status',
  'reblog',
  'follow',
  'follow_request',
  'favourite',
  'poll',
  'update',
  'quote',
  'quoted_update',
  'admin.sign_up',
  'admin.report',
] as const;

export function webPushSubscriptionJson(s: PushSubscription, serverKey: string): string {
  const entity = {
    id: 0,
    endpoint: s.endpoint,
    standard: s.standard,
    alerts: Object.fromEntries(PUSH_ALERT_TYPES.map((t) => [t, s.alerts.includes(t)])),
    policy: s.policy,
    server_key: serverKey,
  };
  if (!/^\d{1,20}$/.test(s.id)) throw new Error(`not an id: ${s.id}`);
  return JSON.stringify(entity).replace('{"id":0,', `{"id":${s.id},`);
}
