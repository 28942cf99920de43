// One delivery attempt: sign the stored body as its author, POST it to the inbox through the guarded client, and
// classify the answer the way Mastodon does: 2xx delivered; 4xx other than 401/408/429 is permanent (404 and 410
// included) and so is a redirect (a POST is not followed); 429 waits for Retry-After; 5xx, timeouts and network
// errors retry with backoff.
import type { DeliveryOutcome } from '../../actors/delivery-host.js';
import type { AccountStore } from '../store/accounts.js';
import type { Delivery } from '../store/deliveries.js';
import { FetchError, parseRetryAfter } from './fetch-errors.js';
import type { HttpClient } from './http-client.js';
import type { LocalActors } from './local-actors.js';

const BODY_TYPE = 'application/activity+json';

export function deliverer(http: HttpClient, accounts: AccountStore, actors: LocalActors): (d: Delivery) => Promise<DeliveryOutcome> {
  return async (d) => {
    const signer = await accounts.byId(d.signerId);
    if (!signer || signer.domain !== null) return { kind: 'drop', error: 'signer is gone' };
    try {
      const res = await http.request({
        method: 'POST',
        url: d.inboxUrl,
        headers: { 'Content-Type': BODY_TYPE, Accept: 'application/activity+json, application/json' },
        body: Buffer.from(d.body),
        sign: await actors.signerFor(signer),
      });
      const s = res.status;
      if (s >= 200 && s < 300) return { kind: 'delivered' };
      if (s === 429) return { kind: 'retry', error: 'HTTP 429', afterMs: parseRetryAfter(res.headers['retry-after']) };
      if (s >= 400 && s < 500 && s !== 401 && s !== 408) return { kind: 'drop', error: `HTTP ${s}` };
      if (s >= 300 && s < 400) return { kind: 'drop', error: `HTTP ${s}: inboxes do not redirect` };
      return { kind: 'retry', error: `HTTP ${s}` };
    } catch (e) {
      if (!(e instanceof FetchError)) throw e;
      if (e.kind === 'transient') return { kind: 'retry', error: e.message };
      if (e.kind === 'rate_limited') return { kind: 'retry', error: e.message, afterMs: e.retryAfterMs };
      return { kind: 'drop', error: e.message };
    }
  };
}
