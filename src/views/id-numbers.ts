// Ids Mastodon's serializers send as JSON numbers (NotificationGroup's most_recent_notification_id: a bigint attribute
// left as it is), written digit for digit into the JSON text: our ids pass 2^53, so going through a JS number would
// change them, while a client decoding an integer (Ice Cubes' Int, any 64-bit parser) gets the exact id.

/**
 * `json` (JSON.stringify's output) with every `"key":"<digits>"` member made `"key":<digits>`. Only a member can match:
 * inside a JSON string a quote is escaped, so no text a user wrote reads as `"key":"`.
 */
export function idsAsNumbers(json: string, key: string): string {
  if (!/^[a-z_]+$/.test(key)) throw new Error(`not a plain key: ${key}`);
  return json.replace(new RegExp(`"${key}":"(\\d{1,20})"`, 'g'), `"${key}":$1`);
}
