// Scheduled posts rendered a page at a time: their reserved uploads read in one query.
import { mediaEntity } from '../entities/media.js';
import { scheduledStatusEntity } from '../entities/scheduled-status.js';
import type { ScheduledStatus, ScheduledStatusStore } from '../store/scheduled-statuses.js';
import { mediaAddresses } from '../urls/media-urls.js';

export class ScheduledViews {
  constructor(
    private readonly store: ScheduledStatusStore,
    private readonly baseUrl: string,
    private readonly publicUrl: string | undefined,
  ) {}

  async many(list: readonly ScheduledStatus[]) {
    const media = await this.store.media(list.map((s) => s.id));
    return list.map((s) =>
      scheduledStatusEntity(
        s,
        (media.get(s.id) ?? []).map((m) => mediaEntity(m, mediaAddresses(m, this.baseUrl, this.publicUrl))),
      ),
    );
  }

  async one(s: ScheduledStatus) {
    return (await this.many([s]))[0]!;
  }
}
