// Fetching link preview cards (Mastodon's FetchLinkCardService), run by actors/card-fetcher.ts: a round claims the
// statuses waiting for a card (store/preview-cards.ts), and for each URL fetches the page once through the one
// outbound client (SSRF guard on every hop, time and byte caps, redirects bounded), HTML only; reads OpenGraph and
// the page's oEmbed document (text/link-card-parse.ts, text/oembed-parse.ts); fetches the image through the same
// client and keeps a small copy with its blurhash (the image pool, media/image-summary.ts). A URL fetched within the
// last day, found or not, is not fetched again: its card is shared by every status linking it.
import { rm, writeFile } from 'node:fs/promises';
import { z } from 'zod';
import { FetchError } from '../federation/fetch-errors.js';
import type { HttpClient } from '../federation/http-client.js';
import type { Logger } from '../log.js';
import type { CardImageResult, CardImageTask } from '../media/image-summary.js';
import { MEDIA_LIMITS } from '../media/limits.js';
import type { MediaFiles } from '../media/media-files.js';
import { sniff } from '../media/sniff.js';
import { tempPath } from '../media/temp-files.js';
import type { CardContent, CardImage, PreviewCard, PreviewCardStore } from '../store/preview-cards.js';
import { parsePage } from '../text/link-card-parse.js';
import { parseOEmbed, type OEmbed } from '../text/oembed-parse.js';

/** Mastodon reads at most 1 MiB of a page (LinkCrawlWorker's Request with body_with_limit). */
export const MAX_PAGE_BYTES = 1024 * 1024;
const MAX_OEMBED_BYTES = 64 * 1024;
const MAX_IMAGE_BYTES = 8 * 1024 * 1024;
const FETCH_TIMEOUT_MS = 10_000;
/** A URL is fetched at most once a day. */
export const REFETCH_AFTER_MS = 24 * 60 * 60 * 1000;
const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);

export interface LinkCardDeps {
  readonly cards: PreviewCardStore;
  readonly http: HttpClient;
  readonly files: MediaFiles;
  readonly images: { summarizeCardImage(task: Omit<CardImageTask, 'kind'>): Promise<CardImageResult> };
  readonly tempDir: string;
  readonly log: Logger;
  /** Our own origin: links to it get no card (Mastodon's bad_url?: TagManager#local_url?). */
  readonly baseUrl: string;
}

class NoCard extends Error {}

export class LinkCards {
  constructor(private readonly d: LinkCardDeps) {}

  /** One round: up to `limit` waiting statuses get their card (or none) under `owner`'s lease; how many were taken. */
  async processDue(owner: string, limit: number): Promise<{ taken: number; nextInMs: number | null }> {
    const jobs = await this.d.cards.claim(owner, limit);
    // One fetch per URL in the round: statuses linking the same page wait for the same answer.
    const byUrl = new Map<string, Promise<PreviewCard | null>>();
    await Promise.all(
      jobs.map(async (job) => {
        let card: PreviewCard | null = null;
        if (!job.skip && !this.isLocal(job.url)) {
          let p = byUrl.get(job.url);
          if (!p) byUrl.set(job.url, (p = this.cardFor(job.url)));
          card = await p;
        }
        await this.d.cards.finish(job.statusId, job.url, card && card.error === null ? card.id : null);
      }),
    );
    return { taken: jobs.length, nextInMs: jobs.length === limit ? 0 : await this.d.cards.nextDueInMs() };
  }

  private isLocal(url: string): boolean {
    try {
      return new URL(url).host === new URL(this.d.baseUrl).host;
    } catch {
      return false;
    }
  }

  /** The card of `url`: the one kept if fetched within a day, else fetched now. */
  async cardFor(url: string): Promise<PreviewCard> {
    const kept = await this.d.cards.byUrl(url);
    if (kept?.fetchedAt && Date.now() - kept.fetchedAt.getTime() < REFETCH_AFTER_MS) return kept;
    let found: { content: CardContent; image: CardImage | null } | { error: string };
    try {
      found = await this.fetchCard(url);
    } catch (e) {
      if (!(e instanceof FetchError) && !(e instanceof NoCard)) throw e;
      const error = e instanceof FetchError ? e.reason : e.message;
      this.d.log.info({ url, reason: error }, 'no link card');
      found = { error };
    }
    const { card, oldFile } = await this.d.cards.record(url, found);
    if (oldFile) await this.d.files.remove(oldFile).catch((err: unknown) => this.d.log.warn({ err, file: oldFile }, 'old card image not removed'));
    return card;
  }

  private async fetchCard(url: string): Promise<{ content: CardContent; image: CardImage | null }> {
    const res = await this.d.http.request({
      method: 'GET',
      url,
      headers: { accept: 'text/html, application/xhtml+xml;q=0.9' },
      maxBytes: MAX_PAGE_BYTES,
      timeoutMs: FETCH_TIMEOUT_MS,
    });
    if (res.status !== 200) throw new NoCard(`status_${res.status}`);
    const [type, ...params] = (res.headers['content-type'] ?? '').split(';').map((s) => s.trim().toLowerCase());
    if (!HTML_TYPES.has(type ?? '')) throw new NoCard('not_html');
    const page = parsePage(decode(res.body, params), res.url);
    const oembed = page.oembedUrl ? await this.oembed(page.oembedUrl) : null;
    const title = oembed?.title || page.title;
    // Mastodon keeps no card for a page that says nothing about itself.
    if (!title && !oembed?.html) throw new NoCard('no_title');
    const imageUrl = oembed?.image ?? page.image;
    const content: CardContent = {
      title,
      description: oembed?.description || page.description,
      type: oembed && oembed.type !== 'link' && (oembed.type === 'photo' || oembed.html) ? oembed.type : 'link',
      authorName: oembed?.authorName || page.authorName,
      authorUrl: oembed?.authorUrl ?? '',
      providerName: oembed?.providerName || page.siteName,
      providerUrl: oembed?.providerUrl ?? '',
      html: oembed?.html ?? '',
      width: oembed?.html ? oembed.width : 0,
      height: oembed?.html ? oembed.height : 0,
      imageRemoteUrl: imageUrl,
      imageDescription: page.imageDescription,
      embedUrl: '',
      language: page.language,
      publishedAt: page.publishedAt,
    };
    return { content, image: imageUrl ? await this.image(imageUrl) : null };
  }

  /** The page's oEmbed document, or null when it cannot be had (the card is made from the page alone). */
  private async oembed(url: string): Promise<OEmbed | null> {
    try {
      const { value, url: at } = await this.d.http.getJson(url, z.unknown(), {
        accept: 'application/json',
        maxBytes: MAX_OEMBED_BYTES,
        timeoutMs: FETCH_TIMEOUT_MS,
      });
      return parseOEmbed(value, at);
    } catch (e) {
      if (!(e instanceof FetchError)) throw e;
      this.d.log.info({ url, reason: e.reason }, 'oEmbed not read');
      return null;
    }
  }

  /** Our small copy of the card's image, or null when it cannot be had (the card is kept without one). */
  private async image(url: string): Promise<CardImage | null> {
    let body: Buffer;
    try {
      const res = await this.d.http.request({ method: 'GET', url, headers: { accept: 'image/*' }, maxBytes: MAX_IMAGE_BYTES, timeoutMs: FETCH_TIMEOUT_MS });
      if (res.status !== 200) throw new FetchError('transient', `status_${res.status}`, url);
      body = res.body;
    } catch (e) {
      if (!(e instanceof FetchError)) throw e;
      this.d.log.info({ url, reason: e.reason }, 'card image not fetched');
      return null;
    }
    if (sniff(body)?.type !== 'image') return null;
    const input = tempPath(this.d.tempDir, '.card');
    const output = tempPath(this.d.tempDir, '.card-out');
    try {
      await writeFile(input, body, { mode: 0o600 });
      const r = await this.d.images.summarizeCardImage({ input, output, maxPixels: MEDIA_LIMITS.imageMatrix });
      if (!r.ok) {
        this.d.log.info({ url, reason: r.reason }, 'card image unreadable');
        return null;
      }
      const file = await this.d.files.adopt(output, r.contentType);
      return { file, contentType: r.contentType, width: r.width, height: r.height, blurhash: r.blurhash };
    } finally {
      await rm(input, { force: true });
      await rm(output, { force: true });
    }
  }
}

/** The page's text in the charset its Content-Type names (UTF-8 when none, or one this runtime does not know). */
function decode(body: Buffer, params: readonly string[]): string {
  const charset = params
    .find((p) => p.startsWith('charset='))
    ?.slice(8)
    .replace(/"/g, '');
  if (charset) {
    try {
      return new TextDecoder(charset).decode(body);
    } catch {
      // unknown label: UTF-8 below
    }
  }
  return new TextDecoder('utf-8').decode(body);
}
