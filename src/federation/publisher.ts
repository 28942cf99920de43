// Sending activities: queue one delivery per destination inbox (durably, deduplicated) and wake the delivery actors
// for those hosts. Delivery itself (signing, POSTing, retrying) happens in the delivery actors.
import type { Config } from '../../config/schema.js';
import type { Account } from '../store/accounts.js';
import type { DeliveryStore } from '../store/deliveries.js';
import type { FollowStore } from '../store/follows.js';
import type { Activity } from './activities.js';
import type { Wake } from '../wake.js';
import { stringifyWithRaw } from './raw-json.js';

export class Publisher {
  constructor(
    private readonly deliveries: DeliveryStore,
    private readonly follows: FollowStore,
    private readonly config: Config,
    /** The delivery scheduler, for the hosts that have new work. */
    private readonly deliveryDue: Wake<[hosts: readonly string[]]>,
  ) {}

  async send(activity: Activity, signer: Account, inboxes: readonly (string | null)[]): Promise<void> {
    const targets = inboxes.filter((i): i is string => !!i);
    const hosts = await this.deliveries.enqueue(activity.id, signer.id, stringifyWithRaw(activity), targets, this.config.federation.deliveryGiveUpMs);
    if (hosts.length) this.deliveryDue.wake(hosts);
  }

  /** To one remote account's own inbox. */
  sendTo(activity: Activity, signer: Account, to: Account): Promise<void> {
    return this.send(activity, signer, [to.inboxUrl]);
  }

  /**
   * A status's audience: the signer's followers (unless direct) and the mentioned remote accounts; a shared inbox
   * gets one copy.
   */
  async sendToAudience(activity: Activity, signer: Account, followers: boolean, mentioned: readonly Account[]): Promise<void> {
    const inboxes = new Set(followers ? await this.follows.followerInboxes(signer.id) : []);
    for (const m of mentioned) if (m.domain && m.inboxUrl) inboxes.add(m.sharedInboxUrl ?? m.inboxUrl);
    return this.send(activity, signer, [...inboxes]);
  }

  /** To every server connected with the signer (followers, followed, pending): actor Updates. */
  async sendToConnected(activity: Activity, signer: Account): Promise<void> {
    return this.send(activity, signer, await this.follows.connectedInboxes(signer.id));
  }
}
