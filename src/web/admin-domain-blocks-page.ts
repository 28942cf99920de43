// Administration › Domain blocks (issue 17), for members whose role may manage federation: the operator's blocks,
// a form to add one, and each block's edit and remove forms. Every write is the same store call as
// /api/v1/admin/domain_blocks (store/domain-blocks.ts), so its effects are the same: suspending a domain suspends its
// known accounts and drops the deliveries queued for it, lifting it undoes that, and every node hears the change.
import { z } from 'zod';
import { Errors } from '../errors.js';
import type { Request } from '../http/request.js';
import { redirect } from '../http/respond.js';
import { type Reply, type Route, route } from '../http/types.js';
import { blockDomain, type DomainBlock, type DomainBlockStore, SEVERITIES } from '../store/domain-blocks.js';
import { isId } from '../store/ids.js';
import type { WebDeps } from './deps.js';
import { type Html, html } from './html.js';
import { csrfField, formPost, pageReply, staff } from './layout.js';
import type { PageContext } from './session.js';

export interface AdminDomainBlocksPageDeps {
  readonly blocks: DomainBlockStore;
}

const BASE = '/admin/domain_blocks';
const MAX_COMMENT = 1000; // the API's bound
const SEVERITY_WORDS: Record<DomainBlock['severity'], string> = {
  silence: 'Limit (kept out of public timelines)',
  suspend: 'Suspend (no federation at all)',
  noop: 'None (only the options below)',
};

const comment = (name: string) => z.string().max(MAX_COMMENT, `The ${name} comment is too long (at most ${MAX_COMMENT} characters)`).optional();
// A checkbox is absent when unchecked; an empty comment is no comment.
const Options = z.object({
  severity: z.enum(SEVERITIES, { error: `Severity must be one of ${SEVERITIES.join(', ')}` }),
  reject_media: z.string().optional(),
  reject_reports: z.string().optional(),
  public_comment: comment('public'),
  private_comment: comment('private'),
  obfuscate: z.string().optional(),
});
const CreateForm = Options.extend({ domain: z.string({ error: "Domain can't be blank" }) });

const options = (v: z.infer<typeof Options>) => ({
  severity: v.severity,
  rejectMedia: v.reject_media !== undefined,
  rejectReports: v.reject_reports !== undefined,
  publicComment: v.public_comment?.trim() || null,
  privateComment: v.private_comment?.trim() || null,
  obfuscate: v.obfuscate !== undefined,
});

const NOTICES: Record<string, string> = { created: 'Domain block added.', updated: 'Domain block saved.', removed: 'Domain block removed.' };
const yes = (b: boolean) => (b ? 'Yes' : 'No');

export function adminDomainBlocksPageRoutes(d: WebDeps, p: AdminDomainBlocksPageDeps): Route[] {
  const title = d.config.instance.title;
  const nav = html`<nav><strong>Administration › Domain blocks</strong><a href="/admin/history">History</a><a href="/">Home</a></nav>`;

  /** The fields both forms share, filled from a block (or the defaults of a new one). */
  const optionFields = (b: Partial<DomainBlock>): Html => html`
      <label for="severity">Severity</label>
      <select id="severity" name="severity">${SEVERITIES.map(
        (s) => html`<option value="${s}"${(b.severity ?? 'silence') === s ? html` selected` : ''}>${SEVERITY_WORDS[s]}</option>`,
      )}</select>
      <p><label><input type="checkbox" name="reject_media" value="1"${b.rejectMedia ? html` checked` : ''}> Reject media files</label></p>
      <p><label><input type="checkbox" name="reject_reports" value="1"${b.rejectReports ? html` checked` : ''}> Reject reports</label></p>
      <p><label><input type="checkbox" name="obfuscate" value="1"${b.obfuscate ? html` checked` : ''}> Obfuscate the domain in the public list</label></p>
      <label for="public_comment">Public comment</label>
      <input type="text" id="public_comment" name="public_comment" maxlength="${MAX_COMMENT}" value="${b.publicComment ?? ''}">
      <label for="private_comment">Private comment (moderators only)</label>
      <input type="text" id="private_comment" name="private_comment" maxlength="${MAX_COMMENT}" value="${b.privateComment ?? ''}">`;

  const removeForm = (ctx: PageContext, b: DomainBlock): Html =>
    html`<form class="inline" method="post" action="${BASE}/${b.id}/remove">${csrfField(ctx)}<button class="secondary remove" type="submit">Remove</button></form>`;

  const listPage = async (status: number, ctx: PageContext, notice: { done?: string; error?: string; form?: Partial<DomainBlock> }) => {
    const blocks = await p.blocks.list();
    return pageReply(
      status,
      'Domain blocks',
      html`${nav}
      ${notice.error ? html`<p class="error" id="error">${notice.error}</p>` : ''}
      ${notice.done && NOTICES[notice.done] ? html`<p class="notice" id="done">${NOTICES[notice.done]}</p>` : ''}
      ${
        blocks.length === 0
          ? html`<p id="no-blocks">No domain is blocked.</p>`
          : html`<table id="domain-blocks"><thead><tr><th>Domain</th><th>Severity</th><th>Reject media</th><th>Reject reports</th><th>Public comment</th><th>Private comment</th><th>Obfuscate</th><th></th></tr></thead><tbody>
        ${blocks.map(
          (
            b,
          ) => html`<tr data-domain="${b.domain}"><td>${b.domain}</td><td class="severity">${b.severity}</td><td class="reject-media">${yes(b.rejectMedia)}</td>
          <td class="reject-reports">${yes(b.rejectReports)}</td><td class="public-comment">${b.publicComment ?? ''}</td><td class="private-comment">${b.privateComment ?? ''}</td>
          <td class="obfuscate">${yes(b.obfuscate)}</td><td><a class="edit" href="${BASE}/${b.id}">Edit</a> ${removeForm(ctx, b)}</td></tr>`,
        )}
        </tbody></table>`
      }
      <h2>Add a domain block</h2>
      <form id="add-block" method="post" action="${BASE}">${csrfField(ctx)}
      <label for="domain">Domain (covers its subdomains)</label>
      <input type="text" id="domain" name="domain" required value="${notice.form?.domain ?? ''}">
      ${optionFields(notice.form ?? {})}
      <button type="submit">Add block</button></form>`,
      title,
      ctx,
    );
  };

  const editPage = (status: number, ctx: PageContext, b: DomainBlock, error?: string): Reply =>
    pageReply(
      status,
      `Domain block: ${b.domain}`,
      html`${nav}
      <p><a href="${BASE}">All domain blocks</a></p>
      <h1>${b.domain}</h1>
      ${error ? html`<p class="error" id="error">${error}</p>` : ''}
      <form id="edit-block" method="post" action="${BASE}/${b.id}">${csrfField(ctx)}
      ${optionFields(b)}
      <button type="submit">Save</button></form>
      <p>${removeForm(ctx, b)}</p>`,
      title,
      ctx,
    );

  // Signed in, Manage federation, and for a form a valid CSRF token: the front end checks the rule.
  const STAFF = staff('manageFederation');
  const blockOf = async (req: Request): Promise<DomainBlock> => {
    const id = req.params['id']!;
    const b = isId(id) ? await p.blocks.byId(id) : undefined;
    if (!b) throw Errors.notFound();
    return b;
  };

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
    route({
      method: 'GET',
      path: `${BASE}/:id`,
      auth: STAFF,
      handler: async (req, ctx) => editPage(200, ctx, await blockOf(req)),
    }),
    route({
      ...formPost(d.config, BASE),
      auth: STAFF,
      handler: async (req, ctx) => {
        const f = CreateForm.safeParse(req.fields);
        const typed = typeof req.fields['domain'] === 'string' ? req.fields['domain'] : '';
        if (!f.success) return listPage(422, ctx, { error: f.error.issues[0]!.message, form: { domain: typed } });
        const domain = blockDomain(f.data.domain);
        if (!domain)
          return listPage(422, ctx, { error: domain === '' ? "Domain can't be blank" : 'Domain is not a valid domain name', form: { domain: typed } });
        const block = await p.blocks.create({ domain, ...options(f.data) });
        if (!block) return listPage(422, ctx, { error: `${domain} is blocked already: edit its block instead.`, form: { domain: typed } });
        d.log.info({ domain: block.domain, severity: block.severity, by: ctx.user.accountId }, 'domain blocked');
        return redirect(`${BASE}?done=created`, undefined, 303);
      },
    }),
    route({
      ...formPost(d.config, `${BASE}/:id`),
      auth: STAFF,
      handler: async (req, ctx) => {
        const b = await blockOf(req);
        const f = Options.safeParse(req.fields);
        if (!f.success) return editPage(422, ctx, b, f.error.issues[0]!.message);
        const block = await p.blocks.update(b.id, options(f.data));
        if (!block) throw Errors.notFound();
        d.log.info({ domain: block.domain, severity: block.severity, by: ctx.user.accountId }, 'domain block changed');
        return redirect(`${BASE}?done=updated`, undefined, 303);
      },
    }),
    route({
      ...formPost(d.config, `${BASE}/:id/remove`),
      auth: STAFF,
      handler: async (req, ctx) => {
        const b = await blockOf(req);
        if (!(await p.blocks.remove(b.id))) throw Errors.notFound();
        d.log.info({ block: b.id, domain: b.domain, by: ctx.user.accountId }, 'domain block lifted');
        return redirect(`${BASE}?done=removed`, undefined, 303);
      },
    }),
  ];
}
