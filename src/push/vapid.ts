// The server's VAPID key pair (RFC 8292), made by web-push once per cluster (SettingsStore.generated), and the
// subject its signatures name: the instance's contact address, else its https URL.
import webpush from 'web-push';
import type { Config } from '../../config/schema.js';

export interface VapidKeys {
  /** base64url of the uncompressed P-256 point: `server_key`, `vapid_key`, `configuration.vapid.public_key`. */
  readonly publicKey: string;
  readonly privateKey: string;
}

export const VAPID_SETTING = 'vapid_keys';

export function newVapidKeys(): VapidKeys {
  return webpush.generateVAPIDKeys();
}

export function vapidSubject(config: Config): string {
  const email = config.instance.contactEmail.trim();
  return email ? `mailto:${email}` : `https://${config.localDomain}`;
}
