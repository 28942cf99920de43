// Administration › Announcements (issue 36), for staff whose role may manage announcements (Mastodon's
// manage_announcements): every announcement, a form to write one (text, the event's start and end, all day,
// published at once or kept as a draft), and each one's edit, publish/unpublish and delete. Members read the
// published ones through /api/v1/announcements; migration 064's triggers stream each change to them.
import { z } from 'zod';
import { Errors } from '../errors.js';
import type { Request } from '../http/request.js';
import { redirect } from '../http/respond.js';
import { type Reply, type Route, route } from '../http/types.js';
import type { Announcement, AnnouncementInput, AnnouncementStore } from '../store/announcements.js';
import { isId } from '../store/ids.js';
import type { WebDeps } from './deps.js';
import { type Html, html } from './html.js';
import { csrfField, formPost, pageReply, staff } from './layout.js';
import type { PageContext } from './session.js';

export interface AdminAnnouncementsPageDeps {
  readonly announcements: AnnouncementStore;
}

const BASE = '/admin/announcements';
const MAX_TEXT = 5000;

// A datetime-local field (minutes, or seconds) or a date, read as UTC; empty is none.
const WHEN = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2})?)?$/;
const when = (name: string) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      const t = v?.trim() ?? '';
      if (t === '') return null;
      const d = WHEN.test(t) ? new Date(t.length === 10 ? `${t}T00:00:00Z` : `${t}Z`) : new Date(Number.NaN);
      if (Number.isNaN(d.getTime())) {
        ctx.addIssue({ code: 'custom', message: `The ${name} time is not a date and time` });
        return z.NEVER;
      }
      return d;
    });

const Form = z
  .object({
    text: z
      .string({ error: "Text can't be blank" })
      .transform((t) => t.trim())
      .pipe(z.string().min(1, "Text can't be blank").max(MAX_TEXT, `Text is too long (at most ${MAX_TEXT} characters)`)),
    starts_at: when('start'),
    ends_at: when('end'),
    all_day: z.string().optional(),
    publish: z.string().optional(),
  })
  // Mastodon's Announcement: a start and an end go together, the end after the start.
  .refine((f) => !f.starts_at === !f.ends_at, { message: 'A start and an end go together: give both or neither' })
  .refine((f) => !f.starts_at || !f.ends_at || f.ends_at > f.starts_at, { message: 'The end must be after the start' });

const input = (f: z.infer<typeof Form>): AnnouncementInput => ({ text: f.text, startsAt: f.starts_at, endsAt: f.ends_at, allDay: f.all_day !== undefined });

/** A time as a datetime-local field shows it (UTC, to the minute). */
const local = (d: Date | null | undefined) => (d ? d.toISOString().slice(0, 16) : '');
const shown = (d: Date | null) => (d ? `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC` : '');

const NOTICES: Record<string, string> = {
  created: 'Announcement saved.',
  updated: 'Announcement saved.',
  published: 'Announcement published.',
  unpublished: 'Announcement unpublished.',
  removed: 'Announcement deleted.',
};

type Typed = Partial<Pick<Announcement, 'text' | 'allDay' | 'startsAt' | 'endsAt'>>;

export function adminAnnouncementsPageRoutes(d: WebDeps, p: AdminAnnouncementsPageDeps): Route[] {
  const title = d.config.instance.title;
  const nav = html`<nav><strong>Administration › Announcements</strong><a href="/admin/rules">Rules</a><a href="/">Home</a></nav>`;

  const fields = (a: Typed): Html => html`
      <label for="text">Text (plain text; links, @mentions and #hashtags are linked)</label>
      <textarea id="text" name="text" rows="4" maxlength="${MAX_TEXT}" required>${a.text ?? ''}</textarea>
      <label for="starts_at">Starts (UTC, optional)</label>
      <input type="datetime-local" id="starts_at" name="starts_at" value="${local(a.startsAt)}">
      <label for="ends_at">Ends (UTC, optional; an ended announcement is no longer shown)</label>
      <input type="datetime-local" id="ends_at" name="ends_at" value="${local(a.endsAt)}">
      <p><label><input type="checkbox" id="all_day" name="all_day" value="1"${a.allDay ? html` checked` : ''}> All day</label></p>`;

  const actionForm = (ctx: PageContext, a: Announcement, action: string, label: string, cls: string): Html =>
    html`<form class="inline" method="post" action="${BASE}/${a.id}/${action}">${csrfField(ctx)}<button class="secondary ${cls}" type="submit">${label}</button></form>`;

  const listPage = async (status: number, ctx: PageContext, notice: { done?: string; error?: string; form?: Typed }): Promise<Reply> => {
    const all = await p.announcements.all();
    return pageReply(
      status,
      'Announcements',
      html`${nav}
      ${notice.error ? html`<p class="error" id="error">${notice.error}</p>` : ''}
      ${notice.done && NOTICES[notice.done] ? html`<p class="notice" id="done">${NOTICES[notice.done]}</p>` : ''}
      ${
        all.length === 0
          ? html`<p id="no-announcements">No announcement yet.</p>`
          : html`<table id="announcements"><thead><tr><th>Text</th><th>Starts</th><th>Ends</th><th>All day</th><th>State</th><th></th></tr></thead><tbody>
        ${all.map(
          (a) => html`<tr data-id="${a.id}"><td class="text">${a.text}</td><td class="starts">${shown(a.startsAt)}</td><td class="ends">${shown(a.endsAt)}</td>
          <td class="all-day">${a.allDay ? 'Yes' : 'No'}</td><td class="state">${a.published ? 'Published' : 'Draft'}</td>
          <td><a class="edit" href="${BASE}/${a.id}">Edit</a>
          ${a.published ? actionForm(ctx, a, 'unpublish', 'Unpublish', 'unpublish') : actionForm(ctx, a, 'publish', 'Publish', 'publish')}
          ${actionForm(ctx, a, 'remove', 'Delete', 'remove')}</td></tr>`,
        )}
        </tbody></table>`
      }
      <h2>New announcement</h2>
      <form id="new-announcement" method="post" action="${BASE}">${csrfField(ctx)}
      ${fields(notice.form ?? {})}
      <p><label><input type="checkbox" id="publish" name="publish" value="1" checked> Publish now (otherwise kept as a draft)</label></p>
      <button type="submit">Save</button></form>`,
      title,
      ctx,
    );
  };

  const editPage = (status: number, ctx: PageContext, a: Announcement, error?: string, typed?: Typed): Reply =>
    pageReply(
      status,
      'Edit announcement',
      html`${nav}
      <p><a href="${BASE}">All announcements</a></p>
      ${error ? html`<p class="error" id="error">${error}</p>` : ''}
      <form id="edit-announcement" method="post" action="${BASE}/${a.id}">${csrfField(ctx)}
      ${fields(typed ?? a)}
      <button type="submit">Save</button></form>`,
      title,
      ctx,
    );

  /** What was typed, to show again with the error. */
  const typedOf = (req: Request): Typed => {
    const f = req.fields;
    const time = (name: string) => {
      const t = when(name).safeParse(typeof f[name] === 'string' ? f[name] : undefined);
      return t.success ? t.data : null;
    };
    return { text: typeof f['text'] === 'string' ? f['text'] : '', allDay: f['all_day'] !== undefined, startsAt: time('starts_at'), endsAt: time('ends_at') };
  };

  const STAFF = staff('manageAnnouncements');
  const announcementOf = async (req: Request): Promise<Announcement> => {
    const id = req.params['id']!;
    const a = isId(id) ? await p.announcements.byId(id) : undefined;
    if (!a) throw Errors.notFound();
    return a;
  };
  const publishing = (publish: boolean, done: string) =>
    route({
      ...formPost(d.config, `${BASE}/:id/${publish ? 'publish' : 'unpublish'}`),
      auth: STAFF,
      handler: async (req, ctx) => {
        const a = await p.announcements.setPublished((await announcementOf(req)).id, publish);
        if (!a) throw Errors.notFound();
        d.log.info({ announcement: a.id, published: publish, by: ctx.user.accountId }, 'announcement published or unpublished');
        return redirect(`${BASE}?done=${done}`, undefined, 303);
      },
    });

  return [
    route({
      method: 'GET',
      path: BASE,
      auth: STAFF,
      handler: async (req, ctx) => {
        const done = req.query['done'];
        return listPage(200, ctx, typeof done === 'string' ? { done } : {});
      },
    }),
    route({ method: 'GET', path: `${BASE}/:id`, auth: STAFF, handler: async (req, ctx) => editPage(200, ctx, await announcementOf(req)) }),
    route({
      ...formPost(d.config, BASE),
      auth: STAFF,
      handler: async (req, ctx) => {
        const f = Form.safeParse(req.fields);
        if (!f.success) return listPage(422, ctx, { error: f.error.issues[0]!.message, form: typedOf(req) });
        const a = await p.announcements.create(input(f.data), f.data.publish !== undefined);
        d.log.info({ announcement: a.id, published: a.published, by: ctx.user.accountId }, 'announcement written');
        return redirect(`${BASE}?done=created`, undefined, 303);
      },
    }),
    route({
      ...formPost(d.config, `${BASE}/:id`),
      auth: STAFF,
      handler: async (req, ctx) => {
        const a = await announcementOf(req);
        const f = Form.safeParse(req.fields);
        if (!f.success) return editPage(422, ctx, a, f.error.issues[0]!.message, typedOf(req));
        if (!(await p.announcements.update(a.id, input(f.data)))) throw Errors.notFound();
        d.log.info({ announcement: a.id, by: ctx.user.accountId }, 'announcement edited');
        return redirect(`${BASE}?done=updated`, undefined, 303);
      },
    }),
    publishing(true, 'published'),
    publishing(false, 'unpublished'),
    route({
      ...formPost(d.config, `${BASE}/:id/remove`),
      auth: STAFF,
      handler: async (req, ctx) => {
        const a = await announcementOf(req);
        if (!(await p.announcements.remove(a.id))) throw Errors.notFound();
        d.log.info({ announcement: a.id, by: ctx.user.accountId }, 'announcement deleted');
        return redirect(`${BASE}?done=removed`, undefined, 303);
      },
    }),
  ];
}
