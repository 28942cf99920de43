// What a push says: Mastodon's Web::NotificationSerializer. The title is the English subject of Mastodon's
// notification mail for the type (notification_mailer.<type>.subject), the body the post's content warning, else its
// text, else the sender's bio, as plain text cut at 140 characters on a word boundary (Rails' truncate).
import type { Account } from '../store/accounts.js';
import type { Notification } from '../store/notifications.js';
import type { Status } from '../store/statuses.js';
import { htmlToPlainText } from '../text/plain-text.js';

export interface PushPayload {
  readonly access_token: string;
  readonly preferred_locale: string;
  /** Digits: serialised as a JSON number, as Mastodon sends it (pushJson). */
  readonly notification_id: string;
  readonly notification_type: string;
  readonly icon: string;
  readonly title: string;
  readonly body: string;
}

const SUBJECTS: Readonly<Record<string, (name: string) => string>> = {
  mention: (n) => `${n} mentioned you`,
  status: (n) => `${n} just posted`,
  reblog: (n) => `${n} boosted your post`,
  follow: (n) => `${n} is now following you`,
  follow_request: (n) => `Pending follower: ${n}`,
  favourite: (n) => `${n} favorited your post`,
  poll: (n) => `A poll by ${n} has ended`,
  update: (n) => `${n} edited a post`,
  quote: (n) => `${n} quoted your post`,
  'admin.sign_up': (n) => `${n} signed up`,
  'admin.report': (n) => `${n} submitted a report`,
};

const BODY_LENGTH = 140;
const OMISSION = '...';

/** Rails' truncate(length: 140, separator: /\s/): at most 140 characters with the omission, cut at a space. */
export function truncateText(text: string, length = BODY_LENGTH): string {
  const chars = [...text];
  if (chars.length <= length) return text;
  const head = chars.slice(0, length - OMISSION.length).join('');
  const space = head.search(/\s\S*$/);
  return (space > 0 ? head.slice(0, space) : head) + OMISSION;
}

export function pushPayload(input: {
  readonly notification: Notification;
  readonly from: Account;
  readonly status: Status | undefined;
  readonly accessToken: string;
  readonly icon: string;
}): PushPayload {
  const { notification: n, from, status } = input;
  const name = from.displayName.trim() || from.username;
  const note = from.domain ? htmlToPlainText(from.note) : from.note;
  const statusText = status && (status.spoilerText || status.text || htmlToPlainText(status.content));
  return {
    access_token: input.accessToken,
    preferred_locale: 'en',
    notification_id: n.id,
    notification_type: n.type,
    icon: input.icon,
    title: (SUBJECTS[n.type] ?? ((x: string) => x))(name),
    body: truncateText((statusText || note).trim()),
  };
}

/**
 * The payload's JSON, with notification_id as a number written digit for digit: our ids pass 2^53, so going through
 * a JS number would change them (a client decoding it with a 64-bit parser gets the exact id).
 */
export function pushJson(p: PushPayload): string {
  if (!/^\d{1,20}$/.test(p.notification_id)) throw new Error(`not an id: ${p.notification_id}`);
  return JSON.stringify({ ...p, notification_id: 0 }).replace('"notification_id":0', `"notification_id":${p.notification_id}`);
}
