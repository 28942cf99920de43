// /api/v1/push/subscription: Mastodon's Web Push subscription of the calling access token (scope `push`, one per
// token; POST replaces it, PUT changes its alerts and policy, DELETE removes it). Pushes themselves are queued by the
// notifications trigger and sent by the push actors (src/push/push-sender.ts).
import { createECDH } from 'node:crypto';
import { isIP } from 'node:net';
import { z } from 'zod';
import { seal } from '../auth/sealed.js';
import { PUSH_ALERT_TYPES, webPushSubscriptionJson } from '../entities/push-subscription.js';
import { Errors } from '../errors.js';
import { classifyAddress, isAllowedAddress } from '../federation/address-guard.js';
import { json, jsonText } from '../http/respond.js';
import { route, type Route, updateRoute } from '../http/types.js';
import { PUSH_POLICIES, type PushSubscriptionStore } from '../store/push-subscriptions.js';
import { invalid, railsBool } from './params.js';

export interface PushApiDeps {
  readonly subscriptions: PushSubscriptionStore;
  /** The VAPID public key, shown as server_key. */
  readonly serverKey: string;
  /** The key access tokens are sealed with (the payload carries the token back to the client). */
  readonly tokenKey: Buffer;
  /** FEDERATION_ALLOW_PRIVATE: the only addresses an http (not https) endpoint may name. */
  readonly allowPrivate: readonly string[];
}

const AUTH = { scopes: ['push'], member: true } as const;

/** base64url (or base64) of exactly `bytes` bytes, checked by decoding. */
const key = (bytes: number, message: string) =>
  z.string({ error: message }).refine((v) => /^[A-Za-z0-9_+/-]+={0,2}$/.test(v) && Buffer.from(v, 'base64url').length === bytes, message);

const Subscription = z.object({
  endpoint: z.string({ error: 'Endpoint is missing' }).max(2048, 'Endpoint is too long'),
  keys: z.object(
    {
      p256dh: key(65, 'Keys p256dh must be an uncompressed P-256 public key (base64url)').refine(onCurve, 'Keys p256dh is not a P-256 point'),
      auth: key(16, 'Keys auth must be 16 bytes (base64url)'),
    },
    { error: 'Keys are missing' },
  ),
  standard: railsBool.optional(),
});

const Data = z
  .object({
    alerts: z.record(z.string(), z.unknown()).optional(),
    policy: z.enum(PUSH_POLICIES, { error: `Policy must be one of ${PUSH_POLICIES.join(', ')}` }).optional(),
  })
  .optional();

function onCurve(p256dh: string): boolean {
  try {
    // computeSecret refuses a point that is not on the curve.
    const ecdh = createECDH('prime256v1');
    ecdh.generateKeys();
    ecdh.computeSecret(Buffer.from(p256dh, 'base64url'));
    return true;
  } catch {
    return false;
  }
}

/**
 * The alert names set true. Rails' `alerts: Notification::TYPES` drops unknown names; `admin: {sign_up: …}` (how
 * masto.js nests them) counts as `admin.sign_up`.
 */
function alertsOf(alerts: Record<string, unknown> | undefined): string[] {
  const flat: [string, unknown][] = [];
  for (const [k, v] of Object.entries(alerts ?? {})) {
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) for (const [sub, w] of Object.entries(v)) flat.push([`${k}.${sub}`, w]);
    else flat.push([k, v]);
  }
  const on: string[] = [];
  for (const [name, value] of flat) {
    if (!(PUSH_ALERT_TYPES as readonly string[]).includes(name)) continue;
    const b = railsBool.safeParse(value);
    if (!b.success) throw Errors.validation(`data[alerts][${name}] must be true or false`);
    if (b.data) on.push(name);
  }
  return on;
}

/** https, or http to an address the operator allowed for federation (loopback in tests). */
function endpointProblem(raw: string, allowPrivate: readonly string[]): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'Endpoint is not a URL';
  }
  if (url.username || url.password) return 'Endpoint may not carry credentials';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol !== 'http:') return 'Endpoint must be an https URL';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const allowed = isIP(host) !== 0 && classifyAddress(host) !== 'public' && isAllowedAddress(host, { allow: allowPrivate });
  return allowed ? undefined : 'Endpoint must be an https URL';
}

/** Mastodon reads `data[policy]`; its documentation names a bare `policy` (masto.js sends that): both are taken. */
function dataOf(fields: Record<string, unknown>) {
  const parsed = Data.safeParse(fields['data'] ?? undefined);
  if (!parsed.success) throw invalid(parsed.error, 'data');
  const bare = z
    .enum(PUSH_POLICIES, { error: `Policy must be one of ${PUSH_POLICIES.join(', ')}` })
    .optional()
    .safeParse(fields['policy'] ?? undefined);
  if (!bare.success) throw invalid(bare.error, 'policy');
  return { alerts: alertsOf(parsed.data?.alerts), policy: parsed.data?.policy ?? bare.data ?? 'all' };
}

export function pushRoutes(d: PushApiDeps): Route[] {
  const reply = (s: Parameters<typeof webPushSubscriptionJson>[0]) => jsonText(200, webPushSubscriptionJson(s, d.serverKey));
  return [
    route({
      method: 'POST',
      path: '/api/v1/push/subscription',
      auth: AUTH,
      body: true,
      handler: async (req, who) => {
        const raw = req.fields['subscription'];
        if (raw === undefined || raw === null || raw === '') throw Errors.badRequest('param is missing or the value is empty: subscription');
        const parsed = Subscription.safeParse(raw);
        if (!parsed.success) throw invalid(parsed.error, 'subscription');
        const problem = endpointProblem(parsed.data.endpoint, d.allowPrivate);
        if (problem) throw Errors.validation(problem);
        const { alerts, policy } = dataOf(req.fields);
        const s = await d.subscriptions.replace({
          accessTokenId: who.record.tokenId,
          accountId: who.record.user.accountId,
          endpoint: parsed.data.endpoint,
          keyP256dh: parsed.data.keys.p256dh,
          keyAuth: parsed.data.keys.auth,
          sealedToken: seal(d.tokenKey, who.key),
          standard: parsed.data.standard ?? false,
          alerts,
          policy,
        });
        return reply(s);
      },
    }),
    route({
      method: 'GET',
      path: '/api/v1/push/subscription',
      auth: AUTH,
      handler: async (_req, who) => {
        const s = await d.subscriptions.ofToken(who.record.tokenId);
        if (!s) throw Errors.notFound();
        return reply(s);
      },
    }),
    ...updateRoute({
      path: '/api/v1/push/subscription',
      auth: AUTH,
      body: true,
      handler: async (req, who) => {
        if (!(await d.subscriptions.ofToken(who.record.tokenId))) throw Errors.notFound();
        // As Mastodon's update!(data: data_params): the data given replaces the whole (alerts not named are off).
        const change = dataOf(req.fields);
        const s = await d.subscriptions.update(who.record.tokenId, change);
        if (!s) throw Errors.notFound();
        return reply(s);
      },
    }),
    route({
      method: 'DELETE',
      path: '/api/v1/push/subscription',
      auth: AUTH,
      handler: async (_req, who) => {
        await d.subscriptions.removeOfToken(who.record.tokenId);
        return json(200, {});
      },
    }),
  ];
}
