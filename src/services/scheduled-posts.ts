// Scheduled posts: keeping a member's post for later (Mastodon's PostStatusService#schedule_status!) and publishing
// it when due (PublishScheduledStatusWorker), through the same StatusService.post as any post, so federation,
// streaming, notifications and the feeds follow as they do for a post made now. A due post is claimed and published
// in one transaction (store/scheduled-statuses.ts): a node killed mid-way leaves it to be published by another, and
// a published one can never be taken again.
import { ApiError, Errors } from '../errors.js';
import type { Logger } from '../log.js';
import type { AccountStore, Account } from '../store/accounts.js';
import type { Transactor } from '../store/db.js';
import {
  SCHEDULED_DAILY_LIMIT,
  SCHEDULED_TOTAL_LIMIT,
  type ScheduledParams,
  type ScheduledStatus,
  type ScheduledStatusStore,
  type ScheduleRefusal,
} from '../store/scheduled-statuses.js';
import type { StatusStore, Visibility } from '../store/statuses.js';
import type { NewPost, StatusService } from './status-service.js';
import { assertQuotable } from './quotable.js';

/** How long a scheduled post whose publication failed (not refused: failed) waits before it is tried again. */
const RETRY_LATER_MS = 60_000;

/** Mastodon's words (config/locales/en.yml, scheduled_statuses.*; media_attachments.validations.images_and_video). */
export const TOO_SOON = 'Scheduled at The scheduled date must be in the future';
const REFUSALS: Record<ScheduleRefusal, string> = {
  total: `You have exceeded the limit of ${SCHEDULED_TOTAL_LIMIT} scheduled posts`,
  daily: `You have exceeded the limit of ${SCHEDULED_DAILY_LIMIT} scheduled posts for today`,
  media: 'media_ids must name your own uploads not attached to another status',
  media_mixed: 'Cannot attach a video to a post that already contains images',
  media_unready: 'Cannot attach files that have not finished processing. Try again in a moment!',
};

export interface ScheduledPostsDeps {
  readonly db: Transactor;
  readonly log: Logger;
  readonly scheduled: ScheduledStatusStore;
  readonly accounts: AccountStore;
  readonly statuses: StatusStore;
  readonly service: StatusService;
  /** How far ahead a post must be scheduled (Mastodon: 5 minutes; shorter only in tests). */
  readonly minOffsetMs: number;
  /** Test-only: a pause before a publication commits (0 in production). */
  readonly publishHoldMs: number;
}

export class ScheduledPosts {
  constructor(private readonly d: ScheduledPostsDeps) {}

  /** Whether `at` is in the past: Mastodon then posts at once, as if no time had been given. */
  static isPast(at: Date, now = Date.now()): boolean {
    return at.getTime() <= now;
  }

  /** Keeps a post for `at` (checked: far enough ahead, within Mastodon's limits, its uploads free). */
  async schedule(me: Account, p: NewPost, at: Date): Promise<ScheduledStatus> {
    // A retry is answered before any check, as Mastodon answers it from the idempotency record first.
    const seen = p.idempotencyKey === undefined ? undefined : await this.d.scheduled.byIdempotencyKey(me.id, p.idempotencyKey);
    if (seen) return seen;
    this.checkAhead(at);
    const params: ScheduledParams = {
      text: p.text,
      visibility: p.visibility,
      sensitive: p.sensitive || p.spoilerText !== '',
      spoiler_text: p.spoilerText,
      language: p.language,
      in_reply_to_id: p.inReplyTo?.id ?? null,
      quoted_status_id: p.quote?.id ?? null,
      media_ids: p.mediaIds?.length ? [...new Set(p.mediaIds)] : null,
      poll: p.poll ? { options: p.poll.options, expires_in: p.poll.expiresInSeconds, multiple: p.poll.multiple, hide_totals: p.poll.hideTotals } : null,
      idempotency: null,
      scheduled_at: null,
      application_id: p.applicationId ?? null,
      with_rate_limit: false,
      quote_approval_policy: p.quotePolicy ?? 'public',
    };
    const r = await this.d.scheduled.create(me.id, at, params, p.idempotencyKey);
    if ('refused' in r) throw Errors.validation(REFUSALS[r.refused]);
    return r.scheduled;
  }

  /** PUT /api/v1/scheduled_statuses/:id: a new time, under the same rules. */
  async reschedule(me: Account, id: string, at: Date): Promise<ScheduledStatus> {
    this.checkAhead(at);
    const r = await this.d.scheduled.reschedule(me.id, id, at);
    if (!r) throw Errors.notFound();
    if ('refused' in r) throw Errors.validation(REFUSALS[r.refused]);
    return r;
  }

  /**
   * Publishes up to `limit` due posts, one transaction each; returns how many were taken and when the next is due
   * (null: none scheduled). A post that cannot be made any more (its author gone, the post it replies to deleted, an
   * upload deleted) is dropped, as Mastodon's worker drops it; any other failure rolls the claim back for a later try.
   */
  async publishDue(limit: number): Promise<{ taken: number; nextInMs: number | null }> {
    let taken = 0;
    while (taken < limit && (await this.publishOne())) taken++;
    return { taken, nextInMs: await this.d.scheduled.nextDueInMs() };
  }

  private async publishOne(): Promise<boolean> {
    let claimed: string | undefined;
    try {
      return await this.claimAndPublish((id) => {
        claimed = id;
      });
    } catch (e) {
      if (claimed === undefined) throw e;
      // The claim rolled back with the failure: the post is kept, and tried again later rather than at once, so that
      // one that keeps failing (the earliest due is claimed first) does not hold back every post due after it.
      await this.d.scheduled.postpone(claimed, RETRY_LATER_MS);
      this.d.log.error({ err: e, scheduled: claimed, retryInMs: RETRY_LATER_MS }, 'scheduled post failed; tried again later');
      return true;
    }
  }

  private async claimAndPublish(onClaim: (id: string) => void): Promise<boolean> {
    return this.d.db.tx(async () => {
      const due = await this.d.scheduled.claimDue();
      if (!due) return false;
      onClaim(due.id);
      try {
        // A savepoint: a refusal undoes the post's own writes, and the claim (the deletion) still commits.
        const status = await this.d.db.tx(() => this.post(due));
        this.d.log.info({ scheduled: due.id, status: status.id }, 'scheduled post published');
      } catch (e) {
        if (!(e instanceof ApiError) || e.status >= 500) throw e;
        this.d.log.info({ scheduled: due.id, reason: e.error }, 'scheduled post dropped: it can no longer be made');
      }
      if (this.d.publishHoldMs > 0) {
        this.d.log.warn({ scheduled: due.id, ms: this.d.publishHoldMs }, 'holding a scheduled post before commit (test-only SCHEDULED_PUBLISH_HOLD_MS)');
        await new Promise((r) => setTimeout(r, this.d.publishHoldMs));
      }
      return true;
    });
  }

  private async post(due: ScheduledStatus) {
    const me = await this.d.accounts.byId(due.accountId);
    if (!me || me.deletedAt || me.suspendedAt) throw Errors.notFound();
    const p = due.params;
    // What it replies to or quotes is looked up now, as the member would see it now.
    const inReplyTo = p.in_reply_to_id ? await this.d.statuses.readable(p.in_reply_to_id, me.id, true) : null;
    if (inReplyTo === undefined) throw Errors.notFound();
    const quote = p.quoted_status_id ? await this.d.statuses.readable(p.quoted_status_id, me.id, true) : null;
    if (quote === undefined) throw Errors.notFound();
    if (quote) await assertQuotable(this.d.statuses, me, quote);
    return this.d.service.post(me, {
      text: p.text,
      visibility: p.visibility as Visibility,
      spoilerText: p.spoiler_text,
      sensitive: p.sensitive,
      language: p.language,
      inReplyTo,
      quote,
      mediaIds: p.media_ids ?? [],
      poll: p.poll ? { options: p.poll.options, expiresInSeconds: p.poll.expires_in, multiple: p.poll.multiple, hideTotals: p.poll.hide_totals } : undefined,
      applicationId: p.application_id ?? undefined,
      quotePolicy: p.quote_approval_policy,
    });
  }

  private checkAhead(at: Date): void {
    if (at.getTime() <= Date.now() + this.d.minOffsetMs) throw Errors.validation(TOO_SOON);
  }
}
