// Voting: a member's vote is recorded here; in a remote poll it is also sent to the poll's author, one Note per
// choice (as Mastodon does), and counted by their server.
import { randomBytes } from 'node:crypto';
import { Errors } from '../errors.js';
import type { Account, AccountStore } from '../store/accounts.js';
import type { Poll, PollStore, VoteRefusal } from '../store/polls.js';
import type { Status } from '../store/statuses.js';
import type { LocalUris } from './local-uris.js';
import { voteActivity } from './note-document.js';
import type { Publisher } from './publisher.js';

const MESSAGES: Record<VoteRefusal, string> = {
  expired: 'The poll has already ended',
  own: 'You cannot vote in your own poll',
  already_voted: 'You have already voted on this poll',
  bad_choices: 'The choices do not fit this poll',
};

export class PollService {
  constructor(private readonly d: { polls: PollStore; accounts: AccountStore; publisher: Publisher; uris: LocalUris }) {}

  async vote(me: Account, poll: Poll, status: Status, choices: readonly number[]): Promise<void> {
    const refused = await this.d.polls.vote(poll.id, me.id, choices, new Date());
    if (refused) throw Errors.validation(MESSAGES[refused]);
    const author = await this.d.accounts.byId(poll.accountId);
    if (!author?.domain || !status.uri) return;
    for (const c of choices) {
      await this.d.publisher.sendTo(voteActivity(this.d.uris, me, author, status.uri, poll.options[c]!, randomBytes(8).toString('hex')), me, author);
    }
  }
}
