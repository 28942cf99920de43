// Voting: a member's vote is recorded here; in a remote poll it is also sent to the poll's author, one Note per
// choice (as Mastodon does), and counted by their server. A local poll's counts go out as an Update of its Question
// when the poll closer finds it due (shortly after votes, and at its end); a remote poll viewed while its copy may be
// stale is fetched again in the background.
import { randomBytes } from 'node:crypto';
import { Errors } from '../errors.js';
import type { Logger } from '../log.js';
import type { Account, AccountStore } from '../store/accounts.js';
import type { Transactor } from '../store/db.js';
import type { Poll, PollStore, VoteRefusal } from '../store/polls.js';
import type { Status, StatusStore } from '../store/statuses.js';
import type { LocalUris } from '../urls/local-uris.js';
import type { NoteHandlers } from '../federation/note-handlers.js';
import { voteActivity } from '../federation/note-document.js';
import type { Publisher } from '../federation/publisher.js';
import type { StatusService } from './status-service.js';

const MESSAGES: Record<VoteRefusal, string> = {
  expired: 'The poll has already ended',
  own: 'You cannot vote in your own poll',
  already_voted: 'You have already voted on this poll',
  bad_choices: 'The choices do not fit this poll',
};

/** A remote poll read longer ago than this (and before its end) is fetched again when viewed, as Mastodon does. */
const STALE_MS = 60_000;
/** Background refreshes in flight on this node at most; past it a view just shows the copy. */
const MAX_REFRESHING = 16;

export interface PollServiceDeps {
  readonly log: Logger;
  readonly db: Transactor;
  readonly polls: PollStore;
  readonly accounts: AccountStore;
  readonly statuses: StatusStore;
  readonly publisher: Publisher;
  readonly uris: LocalUris;
  readonly statusService: StatusService;
  readonly notes: NoteHandlers;
}

export class PollService {
  private refreshing = 0;

  constructor(private readonly d: PollServiceDeps) {}

  /** The vote and the Notes that carry it to a remote poll's server commit together. */
  async vote(me: Account, poll: Poll, status: Status, choices: readonly number[]): Promise<void> {
    return this.d.db.tx(async () => {
      const refused = await this.d.polls.vote(poll.id, me.id, choices, new Date());
      if (refused) throw Errors.validation(MESSAGES[refused]);
      const author = await this.d.accounts.byId(poll.accountId);
      if (!author?.domain || !status.uri) return;
      for (const c of choices) {
        await this.d.publisher.sendTo(voteActivity(this.d.uris, me, author, status.uri, poll.options[c]!, randomBytes(8).toString('hex')), me, author);
      }
    });
  }

  /** Queues the Update of a local poll's Question (the poll closer calls this when one is due). */
  async sendUpdate(p: { id: string; statusId: string }): Promise<void> {
    const s = await this.d.statuses.byId(p.statusId);
    if (!s || s.deletedAt || !s.local) return;
    const author = await this.d.accounts.byId(s.accountId);
    if (!author || author.domain || author.deletedAt) return;
    const voters = await this.d.accounts.byIds(await this.d.polls.remoteVoterIds(p.id));
    await this.d.statusService.federatePoll(
      s,
      author,
      voters.filter((v) => !v.deletedAt),
    );
  }

  /**
   * A remote poll whose copy may be stale is fetched again from its server, in the background: the caller answers
   * with the copy it has. One node fetches (the claim is in the database), at most once a minute per poll.
   */
  refreshIfStale(poll: Poll, status: Status): void {
    if (!poll.remote || !status.uri || this.refreshing >= MAX_REFRESHING) return;
    this.refreshing++;
    void (async () => {
      if (await this.d.polls.claimRefresh(poll.id, STALE_MS)) await this.d.notes.refreshPoll(status);
    })()
      .catch((err: unknown) => this.d.log.info({ err, poll: poll.id, uri: status.uri }, 'poll refresh failed'))
      .finally(() => this.refreshing--);
  }
}
