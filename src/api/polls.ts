// Polls: read one (as its status's visibility allows; a remote one may be refreshed from its server in the
// background) and vote (choices[] by index).
import { z } from 'zod';
import { pollEntity } from '../entities/poll.js';
import { Errors } from '../errors.js';
import type { PollService } from '../services/poll-service.js';
import type { Request } from '../http/request.js';
import { json } from '../http/respond.js';
import { route, type Route } from '../http/types.js';
import type { AccountStore } from '../store/accounts.js';
import { isId } from '../store/ids.js';
import type { Poll, PollStore } from '../store/polls.js';
import type { Status, StatusStore } from '../store/statuses.js';

const Choices = z.object({
  choices: z.union([
    z
      .array(
        z.union([
          z.number().int(),
          z
            .string()
            .regex(/^\d{1,3}$/)
            .transform(Number),
        ]),
      )
      .min(1)
      .max(10),
    z
      .string()
      .regex(/^\d{1,3}$/)
      .transform((v) => [Number(v)]),
  ]),
});

export interface PollApiDeps {
  readonly accounts: AccountStore;
  readonly statuses: StatusStore;
  readonly polls: PollStore;
  readonly service: PollService;
}

export function pollRoutes(d: PollApiDeps): Route[] {
  const find = async (req: Request, viewerId: string | null): Promise<{ poll: Poll; status: Status }> => {
    const id = req.params['id']!;
    const poll = isId(id) ? await d.polls.byId(id) : undefined;
    const status = poll && (await d.statuses.byId(poll.statusId));
    if (!poll || !status || !(await d.statuses.canSee(status, viewerId))) throw Errors.notFound();
    return { poll, status };
  };
  const render = async (pollId: string, viewerId: string | null) => {
    const poll = (await d.polls.byId(pollId))!;
    const own = viewerId ? ((await d.polls.ownVotes(viewerId, [poll.id])).get(poll.id) ?? []) : null;
    return pollEntity(poll, Date.now(), own, viewerId === poll.accountId);
  };
  return [
    route({
      method: 'GET',
      path: '/api/v1/polls/:id',
      auth: { scopes: ['read:statuses'], optional: true },
      handler: async (req, who) => {
        const viewerId = who?.record.user?.accountId ?? null;
        const { poll, status } = await find(req, viewerId);
        // A member viewing a remote poll whose copy may be stale: fetched again, this answer not waiting for it.
        if (viewerId) d.service.refreshIfStale(poll, status);
        return json(200, await render(poll.id, viewerId));
      },
    }),
    route({
      method: 'POST',
      path: '/api/v1/polls/:id/votes',
      auth: { scopes: ['write:statuses'], member: true },
      body: true,
      handler: async (req, who) => {
        const me = await d.accounts.byId(who.record.user.accountId);
        if (!me) throw Errors.notFound();
        const { poll, status } = await find(req, me.id);
        const p = Choices.safeParse(req.fields);
        if (!p.success) throw Errors.validation('choices must be a list of option indexes');
        await d.service.vote(me, poll, status, p.data.choices);
        return json(200, await render(poll.id, me.id));
      },
    }),
  ];
}
