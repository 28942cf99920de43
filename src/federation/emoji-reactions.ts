// Emoji reactions as other servers send and read them. Misskey sends a Like with `_misskey_reaction` and `content`,
// Akkoma and Pleroma an EmojiReact with `content`; either is a Unicode emoji or a custom `:shortcode:` whose image
// comes in an Emoji tag (`icon.url`). We send EmojiReact the Akkoma way: `:shortcode:` and the same Emoji tag.
import { customEmojiName, isEmoji, SHORTCODE, shortcodeOf, type ReactionEmoji } from '../store/reactions.js';
import { asArray, firstHref, hasType, isRecord } from './as2.js';

const MAX_TAGS = 16;

/** The emoji an incoming Like or EmojiReact carries, or null when it carries none we could show. */
export function reactionOf(activity: unknown): ReactionEmoji | null {
  if (!isRecord(activity)) return null;
  for (const value of [activity['content'], activity['_misskey_reaction']]) {
    if (typeof value !== 'string' || value.length > 200) continue;
    const s = value.normalize('NFC').trim();
    if (isEmoji(s)) return { name: s, url: null };
    const shortcode = /^:([^:]+):$/.exec(s)?.[1];
    const url = shortcode && SHORTCODE.test(shortcode) ? emojiImage(activity['tag'], shortcode) : null;
    // A custom emoji without its image (a server's local-only emoji) cannot be shown.
    if (url) return { name: customEmojiName(shortcode!, url), url };
  }
  return null;
}

/** The image URL of the Emoji tag named `:shortcode:` (Mastodon, Misskey) or `shortcode` (some Pleroma versions). */
function emojiImage(tags: unknown, shortcode: string): string | null {
  for (const t of asArray(tags).slice(0, MAX_TAGS)) {
    if (!isRecord(t) || !hasType(t['type'], 'Emoji') || typeof t['name'] !== 'string') continue;
    if (t['name'].replace(/^:|:$/g, '') !== shortcode) continue;
    const icon = asArray(t['icon'])[0];
    const url = isRecord(icon) ? firstHref(icon['url']) : null;
    if (url) return url;
  }
  return null;
}

/** What an EmojiReact we send carries: `content`, and for a custom emoji its Emoji tag. */
export function reactionContent(emoji: ReactionEmoji): { content: string; tag?: Record<string, unknown>[] } {
  if (!emoji.url) return { content: emoji.name };
  const name = `:${shortcodeOf(emoji.name)}:`;
  return { content: name, tag: [{ id: emoji.url, type: 'Emoji', name, icon: { type: 'Image', url: emoji.url } }] };
}
