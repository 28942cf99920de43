// Our public and unlisted statuses as ActivityPub Notes, for servers that dereference them (replies, boosts,
// lookups by URL), and members' outboxes of the same statuses as Create activities, newest first, paged by id
// (what other servers read to backfill a profile). Followers-only and direct statuses are never served: without a
// signed request we cannot tell who is asking. A status's URL (/@name/id) answers the same Note under content
// negotiation, and its page otherwise.
import { Errors } from '../errors.js';
import { PUBLIC, type Reply, type Route } from '../http/types.js';
import type { AccountStore } from '../store/accounts.js';
import type { StatusStore } from '../store/statuses.js';
import type { TimelineStore } from '../store/timelines.js';
import { pageQuery } from '../http/pagination.js';
import type { Request } from '../http/request.js';
import type { Status } from '../store/statuses.js';
import { AS_CONTEXT } from './activities.js';
import { LEMMY_CONTEXT } from './community-documents.js';
import { activityJson, wantsActivityJson } from './actor-routes.js';
import type { LocalNotes } from './local-notes.js';
import type { LocalUris } from '../urls/local-uris.js';
import { createNoteActivity, NOTE_CONTEXT } from './note-document.js';

const OUTBOX_PAGE = 20;
import { openLocalStatus } from './open-statuses.js';

export interface NoteRouteDeps {
  readonly accounts: AccountStore;
  readonly statuses: StatusStore;
  readonly timelines: TimelineStore;
  readonly notes: LocalNotes;
  readonly uris: LocalUris;
  /** The page browsers get at a status's URL, /@name/id (web/public-status-page.ts). */
  readonly statusPage?: (req: Request, name: string, id: string) => Promise<Reply>;
}

export function noteRoutes(d: NoteRouteDeps): Route[] {
  const outbox = async (req: Request) => {
    const author = await d.accounts.byHandle(req.params['name']!, null);
    if (!author?.hasUser || author.instanceActor) throw Errors.notFound();
    const id = d.uris.outbox(author.username);
    if (req.query['page'] === undefined) {
      const total = await d.statuses.countPublic(author.id);
      return activityJson({
        '@context': AS_CONTEXT,
        id,
        type: 'OrderedCollection',
        totalItems: total,
        first: `${id}?page=true`,
        last: `${id}?min_id=0&page=true`,
      });
    }
    const page = pageQuery(req.query, OUTBOX_PAGE, OUTBOX_PAGE);
    const list: Status[] = await d.timelines.ofAccount(author.id, null, page, { excludeReblogs: true });
    const items = [];
    for (const s of list) items.push(createNoteActivity((await d.notes.note(s, author)).note, d.uris, author));
    const self = `${id}?page=true${page.maxId ? `&max_id=${page.maxId}` : ''}${page.minId ? `&min_id=${page.minId}` : ''}`;
    return activityJson({
      '@context': NOTE_CONTEXT,
      id: self,
      type: 'OrderedCollectionPage',
      partOf: id,
      ...(list.length === page.limit ? { next: `${id}?page=true&max_id=${list[list.length - 1]!.id}` } : {}),
      ...(list.length > 0 ? { prev: `${id}?page=true&min_id=${list[0]!.id}` } : {}),
      orderedItems: items.map(({ '@context': _, ...rest }) => rest),
    });
  };

  const note = async (req: Request): Promise<Reply> => {
    const open = await openLocalStatus(d, req.params['name']!, req.params['id']!);
    if (!open) throw Errors.notFound();
    const { note, community } = await d.notes.note(open.status, open.author);
    // A community post or comment is read by Lemmy-family servers: their context defines its `source` and `audience`.
    return activityJson({ '@context': community ? LEMMY_CONTEXT : NOTE_CONTEXT, ...note });
  };

  return [
    { method: 'GET', path: '/users/:name/outbox', auth: PUBLIC, handler: outbox },
    { method: 'GET', path: '/users/:name/statuses/:id', auth: PUBLIC, handler: note },
    // The status's URL as people share it: its page for browsers, the same Note for ActivityPub clients.
    {
      method: 'GET',
      path: '/@:name/:id',
      auth: PUBLIC,
      handler: (req) => (wantsActivityJson(req) || !d.statusPage ? note(req) : d.statusPage(req, req.params['name']!, req.params['id']!)),
    },
  ];
}
