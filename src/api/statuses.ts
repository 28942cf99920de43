// Statuses: post (Idempotency-Key honoured; with scheduled_at, kept for later: services/scheduled-posts.ts), read (visibility enforced on every read), edit (the whole post, media
// and poll included, as Mastodon's clients send it) and its history, delete (returns the source for
// delete-and-redraft), and a status's context (ancestors and descendants the viewer may see).
import { z } from 'zod';
import { Errors } from '../errors.js';
import type { InteractionService } from '../services/interaction-service.js';
import type { NewPost, StatusService } from '../services/status-service.js';
import { ScheduledPosts } from '../services/scheduled-posts.js';
import type { ScheduledViews } from '../views/scheduled-views.js';
import { parseScheduledAt } from './scheduled-at.js';
import { json, jsonPieces } from '../http/respond.js';
import { route, type Route, updateRoute } from '../http/types.js';
import type { AccountStore } from '../store/accounts.js';
import { QUOTE_POLICIES, VISIBILITIES, type Status, type StatusStore } from '../store/statuses.js';
import { LIMITS } from '../entities/instance.js';
import { statusLength } from '../text/status-text.js';
import { description, focus, given, idList, idParam, idWith, invalid, railsBool } from './params.js';
import type { StatusViews } from '../views/status-views.js';
import type { StatusRef } from '../store/status-refs.js';
import { ANONYMOUS_CONTEXT, MEMBER_CONTEXT, type ThreadStore } from '../store/threads.js';
import { pushStatusesJson } from '../views/status-json.js';
import { memberAccount, viewerOf } from './callers.js';
import { assertQuotable } from '../services/quotable.js';

const MAX_CHARS = LIMITS.maxCharacters;
const MAX_MEDIA = LIMITS.maxMediaAttachments;
/** Mastodon's DEFAULT_STATUSES_LIMIT, the most `GET /api/v1/statuses?id[]=` takes. */
const MAX_IDS = 20;

const PollBody = z.object({
  options: z
    .array(
      z
        .string()
        .trim()
        .min(1, 'Poll options must not be blank')
        .max(LIMITS.maxCharactersPerOption, `Poll options are limited to ${LIMITS.maxCharactersPerOption} characters`),
    )
    .min(2, 'A poll needs at least 2 options')
    .max(LIMITS.maxPollOptions, `A poll has at most ${LIMITS.maxPollOptions} options`),
  expires_in: z
    .union([
      z.number(),
      z
        .string()
        .regex(/^\d{1,9}$/)
        .transform(Number),
    ])
    .refine(
      (n) => n >= LIMITS.minPollExpiration && n <= LIMITS.maxPollExpiration,
      `Poll duration must be between ${LIMITS.minPollExpiration} seconds and a month`,
    ),
  multiple: railsBool.optional(),
  hide_totals: railsBool.optional(),
});
/**
 * An ISO 639 code, optionally with a subtag; '' clears it. Clients that send the device's locale write it as "en_US"
 * or "EN": read as en-US and en rather than refused.
 */
const Language = z
  .string()
  .transform((v) => v.replace(/^([A-Za-z]{2,3})(?:[-_]([A-Za-z0-9]{2,8}))?$/, (_, lang: string, sub?: string) => lang.toLowerCase() + (sub ? `-${sub}` : '')))
  .refine((v) => v === '' || /^[a-z]{2,3}(-[A-Za-z0-9]{2,8})?$/.test(v), 'Language is not a valid language code')
  .transform((v) => v || null);
const MediaIds = z.array(idWith('media_ids must be ids')).max(MAX_MEDIA, `Cannot attach more than ${MAX_MEDIA} files`);
// The length rule (statusLength) judges text and content warning together; these bounds only cap the work.
const Text = z.string().max(100_000);

const PostBody = z.object({
  status: Text.optional(),
  visibility: z.enum(VISIBILITIES).optional(),
  in_reply_to_id: idParam.optional().or(z.literal('')),
  spoiler_text: Text.optional(),
  sensitive: railsBool.optional(),
  language: Language.optional(),
  media_ids: MediaIds.optional(),
  poll: z.unknown().optional(),
  scheduled_at: z.unknown().optional(),
  quote_approval_policy: z.enum(QUOTE_POLICIES).optional(),
});

/** An edit is the whole post as it is to be: what it leaves out (media, poll, content warning) the post loses, as on Mastodon. */
const EditBody = z.object({
  status: Text.optional(),
  spoiler_text: Text.optional(),
  sensitive: railsBool.optional(),
  language: Language.optional(),
  media_ids: MediaIds.optional(),
  media_attributes: z
    .array(
      z.object({
        id: idParam,
        description: description.nullable().optional(),
        focus: focus.optional(),
        thumbnail: z.unknown().optional(), // accepted and ignored: Stoa makes no thumbnails
      }),
    )
    .max(MAX_MEDIA)
    .optional(),
  poll: z.unknown().optional(),
});

function pollOf(raw: unknown): NewPost['poll'] {
  if (raw === undefined) return undefined;
  // Nulls inside the poll are options left unset too (megalodon sends multiple: null).
  const poll = PollBody.safeParse(raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? given(raw as Record<string, unknown>) : raw);
  if (!poll.success) throw invalid(poll.error, 'poll');
  const p = poll.data;
  if (new Set(p.options).size !== p.options.length) throw Errors.validation('Poll options must be different');
  return { options: p.options, expiresInSeconds: p.expires_in, multiple: p.multiple ?? false, hideTotals: p.hide_totals ?? false };
}

/**
 * Mastodon's rules for a post's text: present unless the post has media (a poll does not stand in for it), and at
 * most MAX_CHARS long with the content warning, counted as Mastodon counts (links 23, remote mentions by their
 * local part, grapheme clusters).
 */
function checkText(text: string, spoilerText: string, hasMedia: boolean): void {
  if (!hasMedia && text.trim() === '') throw Errors.validation("Text can't be blank");
  if (statusLength(text, spoilerText, LIMITS.charactersReservedPerUrl) > MAX_CHARS) throw Errors.validation(`Text character limit of ${MAX_CHARS} exceeded`);
}

const BOTH = 'A status cannot have both media and a poll';
const QuoteId = z.object({ quoted_status_id: idParam.optional() });

export interface StatusApiDeps {
  readonly accounts: AccountStore;
  readonly statuses: StatusStore;
  readonly threads: ThreadStore;
  readonly service: StatusService;
  readonly views: StatusViews;
  readonly interactions: InteractionService;
  readonly scheduled: ScheduledPosts;
  readonly scheduledViews: ScheduledViews;
}

export function statusRoutes(d: StatusApiDeps): Route[] {
  const found = (s: Status | undefined): Status => {
    if (!s) throw Errors.notFound();
    return s;
  };
  const visible = async (id: string | undefined, viewerId: string | null) => found(id === undefined ? undefined : await d.statuses.readable(id, viewerId));
  /** A status to reply to, quote or thread from: a boost's id stands for the boosted status. */
  const original = async (id: string | undefined, viewerId: string | null) =>
    found(id === undefined ? undefined : await d.statuses.readable(id, viewerId, true));

  return [
    route({
      method: 'POST',
      path: '/api/v1/statuses',
      auth: { scopes: ['write:statuses'], member: true },
      body: true,
      handler: async (req, who) => {
        const me = await memberAccount(d.accounts, who);
        const defaults = who.record.user;
        const parsed = PostBody.safeParse(given(req.fields));
        if (!parsed.success) throw invalid(parsed.error);
        const p = parsed.data;
        // As Mastodon: a time in the past is no schedule at all (the post is made now); one sooner than the minimum
        // offset is refused.
        const at = parseScheduledAt(p.scheduled_at);
        const later = at !== undefined && !ScheduledPosts.isPast(at) ? at : undefined;
        const poll = pollOf(p.poll);
        const mediaIds = p.media_ids ?? [];
        if (poll && mediaIds.length) throw Errors.validation(BOTH);
        const text = p.status ?? '';
        checkText(text, p.spoiler_text ?? '', mediaIds.length > 0);
        const inReplyTo = p.in_reply_to_id ? await original(p.in_reply_to_id, me.id) : null;
        const q = QuoteId.safeParse(given(req.fields));
        if (!q.success) throw invalid(q.error);
        const quote = q.data.quoted_status_id ? await original(q.data.quoted_status_id, me.id) : null;
        if (quote) await assertQuotable(d.statuses, me, quote);
        const key = req.headers['idempotency-key'];
        if (key !== undefined && (key.length === 0 || key.length > 256)) throw Errors.validation('Idempotency-Key must be 1 to 256 characters');
        const post: NewPost = {
          text,
          // The member's posting defaults (update_credentials source[…]) fill what the request leaves out.
          visibility: p.visibility ?? defaults.defaultPrivacy,
          spoilerText: p.spoiler_text ?? '',
          sensitive: p.sensitive ?? defaults.defaultSensitive,
          language: p.language === undefined ? defaults.defaultLanguage : p.language,
          inReplyTo,
          idempotencyKey: key,
          mediaIds,
          quote,
          poll,
          applicationId: who.record.appId,
          quotePolicy: p.quote_approval_policy,
        };
        if (later) return json(200, await d.scheduledViews.one(await d.scheduled.schedule(me, post, later)));
        return json(200, await d.views.one(await d.service.post(me, post), me.id));
      },
    }),
    route({
      // Several statuses at once (Mastodon 4.3): those the viewer may read, in the order asked.
      method: 'GET',
      path: '/api/v1/statuses',
      auth: { scopes: ['read:statuses'], optional: true },
      handler: async (req, who) => {
        const viewerId = viewerOf(who);
        const ids = idList(req.query);
        if (ids.length > MAX_IDS) throw Errors.validation(`At most ${MAX_IDS} statuses can be asked for at once`);
        const byId = new Map((await d.statuses.visibleAmong(ids, viewerId)).map((s) => [s.id, s]));
        return json(
          200,
          await d.views.many(
            ids.map((id) => byId.get(id)).filter((s): s is Status => !!s),
            viewerId,
          ),
        );
      },
    }),
    route({
      method: 'GET',
      path: '/api/v1/statuses/:id',
      auth: { scopes: ['read:statuses'], optional: true },
      handler: async (req, who) => {
        const viewerId = viewerOf(who);
        // As Mastodon: every matching filter, whatever its context, and nothing hidden (the client asked for it).
        const [entity] = await d.views.inContext([await visible(req.params['id'], viewerId)], viewerId, null, false);
        return json(200, entity);
      },
    }),
    route({
      method: 'DELETE',
      path: '/api/v1/statuses/:id',
      auth: { scopes: ['write:statuses'], member: true },
      handler: async (req, who) => {
        const me = await memberAccount(d.accounts, who);
        const s = await visible(req.params['id'], me.id);
        if (s.accountId !== me.id) throw Errors.notFound();
        if (s.reblogOfId) {
          // Deleting one's boost is unboosting: the Undo reaches the servers that got the Announce.
          const boosted = (await d.statuses.byId(s.reblogOfId))!;
          await d.interactions.unreblog(me, boosted);
          return json(200, await d.views.one(boosted, me.id));
        }
        // Rendered first: the response carries the media and source a client needs to redraft the post.
        const shown = await d.views.one(s, me.id, { withText: true });
        await d.service.remove(me, s);
        return json(200, shown);
      },
    }),
    ...updateRoute({
      path: '/api/v1/statuses/:id',
      auth: { scopes: ['write:statuses'], member: true },
      body: true,
      handler: async (req, who) => {
        const me = await memberAccount(d.accounts, who);
        const s = await visible(req.params['id'], me.id);
        if (s.accountId !== me.id || s.reblogOfId) throw Errors.notFound();
        const parsed = EditBody.safeParse(given(req.fields));
        if (!parsed.success) throw invalid(parsed.error);
        const p = parsed.data;
        const poll = pollOf(p.poll);
        const mediaIds = p.media_ids ?? [];
        if (poll && mediaIds.length) throw Errors.validation(BOTH);
        const text = p.status ?? '';
        const spoilerText = p.spoiler_text ?? '';
        checkText(text, spoilerText, mediaIds.length > 0);
        // Visibility and thread stay whatever is sent, as on Mastodon.
        const edited = await d.service.edit(me, s, {
          text,
          spoilerText,
          sensitive: p.sensitive ?? false,
          language: p.language === undefined ? s.language : p.language,
          mediaIds,
          mediaAttributes: (p.media_attributes ?? []).map((a) => ({ id: a.id, description: a.description, focus: a.focus })),
          poll: poll ?? null,
        });
        return json(200, await d.views.one(edited, me.id));
      },
    }),
    route({
      method: 'GET',
      path: '/api/v1/statuses/:id/source',
      auth: { scopes: ['read:statuses'], member: true },
      handler: async (req, who) => {
        const me = await memberAccount(d.accounts, who);
        const s = await visible(req.params['id'], me.id);
        if (s.accountId !== me.id || !s.local) throw Errors.notFound();
        return json(200, { id: s.id, text: s.text, spoiler_text: s.spoilerText });
      },
    }),
    route({
      method: 'GET',
      path: '/api/v1/statuses/:id/history',
      auth: { scopes: ['read:statuses'], optional: true },
      handler: async (req, who) => {
        const viewerId = viewerOf(who);
        const s = await visible(req.params['id'], viewerId);
        return json(200, await d.views.history(s, viewerId));
      },
    }),
    route({
      method: 'GET',
      path: '/api/v1/statuses/:id/context',
      auth: { scopes: ['read:statuses'], optional: true },
      handler: async (req, who) => {
        const viewerId = viewerOf(who);
        // The status, its thread and the thread's dynamic parts in one statement (store/threads.ts).
        const thread = await d.threads.context(req.params['id']!, viewerId, viewerId === null ? ANONYMOUS_CONTEXT : MEMBER_CONTEXT);
        if (!thread) throw Errors.notFound();
        const { ancestors, descendants } = thread;
        // Both halves rendered together.
        const entities = await d.views.inContextRefs({ refs: [...ancestors, ...descendants], dynamics: thread.dynamics }, viewerId, 'thread');
        const byId = new Map(entities.map((e) => [e.id, e]));
        const shown = (list: readonly StatusRef[]) => list.flatMap((x) => byId.get(x.id) ?? []);
        const parts = pushStatusesJson(shown(ancestors), ['{"ancestors":']);
        parts.push(',"descendants":');
        pushStatusesJson(shown(descendants), parts).push('}');
        return jsonPieces(200, parts);
      },
    }),
  ];
}
