// Our public and unlisted statuses as ActivityPub Notes, for servers that dereference them (replies, boosts,
// lookups by URL). Followers-only and direct statuses are not served: without a signed request we cannot tell
// who is asking.
import { Errors } from '../errors.js';
import type { Route } from '../http/types.js';
import type { AccountStore } from '../store/accounts.js';
import type { StatusStore } from '../store/statuses.js';
import { activityJson } from './actor-routes.js';
import { NOTE_CONTEXT } from './note-document.js';
import type { StatusService } from './status-service.js';

export interface NoteRouteDeps {
  readonly accounts: AccountStore;
  readonly statuses: StatusStore;
  readonly service: StatusService;
}

export function noteRoutes(d: NoteRouteDeps): Route[] {
  return [
    {
      method: 'GET',
      path: '/users/:name/statuses/:id',
      handler: async (req) => {
        const id = req.params['id']!;
        const s = /^\d{1,19}$/.test(id) ? await d.statuses.byId(id) : undefined;
        const author = s && (await d.accounts.byId(s.accountId));
        if (!s || !author || !s.local || s.deletedAt || author.username !== req.params['name'] || (s.visibility !== 'public' && s.visibility !== 'unlisted')) {
          throw Errors.notFound();
        }
        const { note } = await d.service.note(s, author);
        return activityJson({ '@context': NOTE_CONTEXT, ...note });
      },
    },
  ];
}
