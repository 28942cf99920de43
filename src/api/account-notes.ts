// A member's private note on an account (Mastodon's Api::V1::Accounts::NotesController): set, changed, or cleared
// by an empty comment; answered with the Relationship, whose `note` shows it.
import { z } from 'zod';
import { relationshipEntity } from '../entities/relationship.js';
import { Errors } from '../errors.js';
import { json } from '../http/respond.js';
import { route, type Route } from '../http/types.js';
import type { AccountNoteStore } from '../store/account-notes.js';
import type { AccountStore } from '../store/accounts.js';
import type { FollowStore } from '../store/follows.js';
import { memberAccount } from './callers.js';

/** Mastodon's AccountNote validates the comment's length: 2,000 characters. */
const MAX_COMMENT = 2000;

const NoteBody = z.object({
  comment: z
    .string({ message: 'Comment must be a string' })
    .nullish()
    .transform((v) => v ?? '')
    // Characters as Ruby counts them (code points), not UTF-16 units.
    .refine((v) => [...v].length <= MAX_COMMENT, `Comment is too long (maximum is ${MAX_COMMENT} characters)`),
});

export interface AccountNoteDeps {
  readonly accounts: AccountStore;
  readonly follows: FollowStore;
  readonly notes: AccountNoteStore;
}

export function accountNoteRoutes(d: AccountNoteDeps): Route[] {
  return [
    route({
      method: 'POST',
      path: '/api/v1/accounts/:id/note',
      auth: { scopes: ['write:accounts'], member: true },
      body: true,
      handler: async (req, who) => {
        const viewer = await memberAccount(d.accounts, who);
        const other = await d.accounts.byId(req.params['id']!);
        if (!other || other.deletedAt || other.instanceActor || (other.domain === null && !other.hasUser)) throw Errors.notFound();
        const parsed = NoteBody.safeParse(req.fields);
        if (!parsed.success) throw Errors.validation(parsed.error.issues[0]!.message);
        // Blank as Rails' `blank?`: only whitespace clears the note too.
        await d.notes.set(viewer.id, other.id, parsed.data.comment.trim() === '' ? '' : parsed.data.comment);
        return json(200, relationshipEntity((await d.follows.relationships(viewer.id, [other.id]))[0]!));
      },
    }),
  ];
}
