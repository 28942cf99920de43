// Announcements rendered for the client API and the streams: what the text names (accounts, local posts, hashtags)
// is resolved once per version of an announcement and kept (announcements are few and rarely change), then each
// reader's state is added: read (dismissed) and which reactions are theirs.
import { type AnnouncementEntity, announcementEntity, type AnnouncementParts } from '../entities/announcement.js';
import { statusUrl } from '../entities/status.js';
import type { Account, AccountStore } from '../store/accounts.js';
import type { Announcement, AnnouncementStore } from '../store/announcements.js';
import type { StatusStore } from '../store/statuses.js';
import { extractHashtags, extractMentions, type ResolvedMention, statusHtml } from '../text/status-text.js';
import type { LocalUris } from '../urls/local-uris.js';

export interface AnnouncementViewDeps {
  readonly baseUrl: string;
  readonly localDomain: string;
  readonly uris: LocalUris;
  readonly announcements: AnnouncementStore;
  readonly accounts: AccountStore;
  readonly statuses: StatusStore;
}

const MAX_NAMED = 20; // accounts or posts resolved from one text
const KEPT = 200; // rendered versions kept

export class AnnouncementViews {
  private readonly parts = new Map<string, AnnouncementParts>();

  constructor(private readonly d: AnnouncementViewDeps) {}

  /** The announcements as `viewer` sees them. */
  async render(list: readonly Announcement[], viewer: string): Promise<AnnouncementEntity[]> {
    const ids = list.map((a) => a.id);
    const [reactions, dismissed] = await Promise.all([this.d.announcements.reactions(ids, viewer), this.d.announcements.dismissed(ids, [viewer])]);
    const out: AnnouncementEntity[] = [];
    for (const a of list) {
      const read = dismissed.has(`${viewer} ${a.id}`);
      out.push(announcementEntity(a, await this.partsOf(a), this.d.uris, { read, reactions: reactions.get(a.id) ?? [] }));
    }
    return out;
  }

  /** One announcement's JSON for each of these members (a stream's `announcement` event), rendered with two queries. */
  async renderFor(a: Announcement, viewers: readonly string[]): Promise<Map<string, string>> {
    const [counts, mine, dismissed] = await Promise.all([
      this.d.announcements.reactions([a.id], null),
      this.d.announcements.reactionsBy(a.id, viewers),
      this.d.announcements.dismissed([a.id], viewers),
    ]);
    const parts = await this.partsOf(a);
    const all = counts.get(a.id) ?? [];
    const out = new Map<string, string>();
    for (const v of viewers) {
      const reactions = all.map((r) => ({ ...r, me: mine.has(`${v} ${r.name}`) }));
      out.set(v, JSON.stringify(announcementEntity(a, parts, this.d.uris, { read: dismissed.has(`${v} ${a.id}`), reactions })));
    }
    return out;
  }

  private async partsOf(a: Announcement): Promise<AnnouncementParts> {
    const key = `${a.id} ${a.updatedAt.getTime()}`;
    let p = this.parts.get(key);
    if (!p) {
      p = await this.resolve(a.text);
      if (this.parts.size >= KEPT) this.parts.delete(this.parts.keys().next().value!);
      this.parts.set(key, p);
    }
    return p;
  }

  /** Mastodon's Account.from_text and status URLs: known accounts only (no lookups elsewhere), public posts of ours. */
  private async resolve(text: string): Promise<AnnouncementParts> {
    const mentions: Account[] = [];
    const links = new Map<string, ResolvedMention>();
    for (const m of extractMentions(text).slice(0, MAX_NAMED)) {
      const local = m.domain === null || m.domain === this.d.localDomain;
      const acc = await this.d.accounts.byHandle(m.username, local ? null : m.domain);
      if (!acc || acc.deletedAt || acc.instanceActor || (local && !acc.hasUser) || links.has(m.acct.toLowerCase())) continue;
      if (!mentions.some((x) => x.id === acc.id)) mentions.push(acc);
      links.set(m.acct.toLowerCase(), { url: acc.domain ? (acc.url ?? acc.uri ?? '') : this.d.uris.profile(acc.username), username: acc.username });
    }
    const statuses: { id: string; url: string }[] = [];
    const base = this.d.baseUrl.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const pattern = new RegExp(`${base}/(?:@[A-Za-z0-9_]+|users/[A-Za-z0-9_]+/statuses)/(\\d{1,20})(?![\\w/])`, 'g');
    for (const [, id] of [...text.matchAll(pattern)].slice(0, MAX_NAMED)) {
      const s = await this.d.statuses.byId(id!);
      if (!s?.local || s.deletedAt || (s.visibility !== 'public' && s.visibility !== 'unlisted') || statuses.some((x) => x.id === s.id)) continue;
      const author = await this.d.accounts.byId(s.accountId);
      const url = author && statusUrl(s, author, this.d.uris);
      if (url) statuses.push({ id: s.id, url });
    }
    return { content: statusHtml(text, links, (t) => this.d.uris.tag(t)), mentions, statuses, tags: extractHashtags(text) };
  }
}
