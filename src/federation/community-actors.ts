// A remote Group (a Lemmy, PieFed or Mbin community) stored or refreshed: its link-aggregator record (the id Lemmy
// clients see, its moderators collection, posting restriction and NSFW flag) and its moderators, read from that
// collection through the one outbound client (signed, timeout, byte cap, SSRF guard), bounded.
import { z } from 'zod';
import type { Logger } from '../log.js';
import type { Account } from '../store/accounts.js';
import type { LinkAggregatorStore } from '../store/link-aggregator.js';
import { asArray, isRecord, refUrl, type CommunityDoc } from './as2.js';
import type { HttpClient, Signer } from './http-client.js';
import { sameOrigin } from './remote-actors.js';

/** Moderators read from one collection document at most (Lemmy lists them all on one page). */
export const MAX_MODERATORS = 25;

export interface CommunityActorsDeps {
  readonly log: Logger;
  readonly store: Pick<LinkAggregatorStore, 'communityId' | 'describeCommunity' | 'setModerators'>;
  readonly http: HttpClient;
  readonly signer: Signer;
  /** Resolves a moderator's actor (stored, or fetched from its origin). */
  readonly resolve: (uri: string) => Promise<Account>;
}

/** A collection's items (embedded or on its first page, itself embedded), as ids. */
const itemsSchema = z
  .object({})
  .loose()
  .transform((c) => {
    const first = isRecord(c['first']) ? c['first'] : null;
    const items = c['orderedItems'] ?? c['items'] ?? first?.['orderedItems'] ?? first?.['items'];
    return asArray(items)
      .slice(0, MAX_MODERATORS)
      .map(refUrl)
      .filter((x): x is string => x !== null);
  });

export class CommunityActors {
  constructor(private readonly d: CommunityActorsDeps) {}

  /** The Group's record, now; its moderators in the background (a refresh must not wait on N actor fetches). */
  async stored(group: Account, c: CommunityDoc): Promise<void> {
    const id = await this.d.store.communityId(group.id);
    const moderators = c.moderators && sameOrigin(c.moderators, group.uri!) ? c.moderators : null;
    await this.d.store.describeCommunity(id, moderators, c.postingRestrictedToMods, c.sensitive);
    if (moderators) void this.readModerators(id, moderators, group.uri!);
  }

  async readModerators(communityId: number, url: string, groupUri: string): Promise<void> {
    try {
      const { value } = await this.d.http.getJson(url, itemsSchema, { sign: this.d.signer });
      const ids: string[] = [];
      for (const uri of value) {
        try {
          ids.push((await this.d.resolve(uri)).id);
        } catch (e) {
          this.d.log.debug({ err: e, moderator: uri, community: groupUri }, 'community moderator not resolved');
        }
      }
      await this.d.store.setModerators(communityId, ids);
    } catch (e) {
      this.d.log.info({ err: e, community: groupUri }, 'community moderators not read');
    }
  }
}
