// Remote avatars and headers through our own server: fetched on first view (through the SSRF-guarded, size-capped
// client; the bytes must be an image), kept on the media storage shared by the cluster, and served from then on by
// every node; one origin fetch per image for the cluster (store/media-fetch-locks.ts). Clients never load
// images from other servers, which would tell those servers who looks at whom (entities/account.ts remoteImageUrl). An image that cannot be fetched is
// answered with the default one for a while rather than fetched again on every view.
import type { Config } from '../../config/schema.js';
import { missingImage } from '../urls/media-urls.js';
import { Errors } from '../errors.js';
import { FetchError } from '../federation/fetch-errors.js';
import type { HttpClient, Signer } from '../federation/http-client.js';
import { fileReply } from '../http/file-body.js';
import { PUBLIC, type Reply, type Route } from '../http/types.js';
import type { Logger } from '../log.js';
import type { LocatedFile, MediaFiles } from '../media/media-files.js';
import type { MediaFetchLocks } from '../store/media-fetch-locks.js';
import { SingleFlight } from '../media/single-flight.js';
import { RecentFailures } from '../media/recent-failures.js';
import { sniff } from '../media/sniff.js';
import type { AccountStore } from '../store/accounts.js';
import { isId } from '../store/ids.js';
import type { RemoteImage, RemoteImageStore } from '../store/remote-images.js';
import { MAX_PROFILE_IMAGE_BYTES } from './profile.js';

const FAILED_FOR_MS = 10 * 60_000;
const KINDS = { avatar: 'avatars', header: 'headers' } as const;

export interface RemoteImageDeps {
  readonly config: Config;
  readonly log: Logger;
  readonly accounts: AccountStore;
  readonly images: RemoteImageStore;
  readonly files: MediaFiles;
  readonly locks: MediaFetchLocks;
  readonly http: HttpClient;
  readonly signer: Signer;
  /** The operator's federation policy: true when media from any of these hosts is rejected (kept images included). */
  readonly rejectsMediaFrom: (hosts: readonly (string | null)[]) => Promise<boolean>;
}

export function remoteImageRoutes(d: RemoteImageDeps): Route[] {
  // One fetch per URL at a time on this node, and a bounded memory of recent failures.
  const inFlight = new SingleFlight<RemoteImage | null>();
  const failed = new RecentFailures<true>(FAILED_FOR_MS);

  const fetchImage = async (url: string): Promise<RemoteImage | null> => {
    try {
      const res = await d.http.request({ method: 'GET', url, sign: d.signer, maxBytes: MAX_PROFILE_IMAGE_BYTES });
      if (res.status !== 200) throw new FetchError('transient', `status_${res.status}`, url);
      const kind = sniff(res.body);
      if (kind?.type !== 'image') throw new FetchError('unsupported', 'not_an_image', url);
      const fileName = await d.files.save(res.body, kind.contentType);
      const replaced = await d.images.put(url, fileName, kind.contentType, res.body.length);
      if (replaced && replaced !== fileName) await d.files.remove(replaced);
      return { url, fileName, contentType: kind.contentType };
    } catch (e) {
      if (!(e instanceof FetchError)) throw e;
      d.log.info({ url, reason: e.reason }, 'remote image not fetched');
      failed.set(url, true);
      return null;
    }
  };

  /** The kept copy if its file is on the storage (a row whose file is gone is fetched again). */
  const keptCopy = async (url: string): Promise<{ got: RemoteImage; f: LocatedFile } | undefined> => {
    const got = await d.images.byUrl(url);
    const f = got && (await d.files.locate(got.fileName));
    return got && f ? { got, f } : undefined;
  };

  const image = async (url: string): Promise<{ got: RemoteImage; f: LocatedFile } | undefined> => {
    const kept = await keptCopy(url);
    if (kept) return kept;
    if (failed.get(url)) return undefined;
    // Under the cluster's lock, looked up again: another node may have kept it while this one waited.
    const got = await inFlight.run(url, () => d.locks.once(`image:${url}`, async () => (await keptCopy(url))?.got ?? (await fetchImage(url))));
    const f = got && (await d.files.locate(got.fileName));
    return got && f ? { got, f } : undefined;
  };

  const fallback = (kind: keyof typeof KINDS): Reply => ({
    status: 302,
    headers: { Location: missingImage(d.config, KINDS[kind]), 'Cache-Control': 'no-store' },
    body: '',
  });

  return [
    {
      method: 'GET',
      path: '/media_proxy/accounts/:id/:kind',
      auth: PUBLIC,
      handler: async (req) => {
        const id = req.params['id']!;
        const kind = req.params['kind'];
        if (kind !== 'avatar' && kind !== 'header') throw Errors.routeNotFound();
        const a = isId(id) ? await d.accounts.byId(id) : undefined;
        if (!a || a.domain === null) throw Errors.routeNotFound();
        const url = kind === 'avatar' ? a.avatarRemoteUrl : a.headerRemoteUrl;
        if (!url) return fallback(kind);
        // reject_media covers avatars and headers as in Mastodon: the default image, nothing fetched.
        if (await d.rejectsMediaFrom([a.domain, hostOf(url)])) return fallback(kind);
        const kept = await image(url);
        if (!kept) return fallback(kind);
        const { got, f } = kept;
        return fileReply(f, req.headers['range'], {
          'Content-Type': got.contentType,
          // The address changes with the image (?v=), so a copy may be kept long.
          'Cache-Control': 'public, max-age=604800',
          'X-Content-Type-Options': 'nosniff',
          'Content-Security-Policy': "default-src 'none'; sandbox",
        });
      },
    },
  ];
}

function hostOf(url: string): string | null {
  try {
    return new URL(url).host.toLowerCase();
  } catch {
    return null;
  }
}
