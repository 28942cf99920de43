// Administration › Rules (issue 36): the server's rules (Mastodon's manage_rules: add, edit, remove, order by
// priority), shown by /api/v1/instance/rules and in both instance documents; and, for staff who may manage
// settings, the texts and switches /api/v1/instance/* shows: extended description, privacy policy, a version of the
// terms of service with the day it takes effect, and whether peers and weekly activity are published.
import { z } from 'zod';
import { hasPermission } from '../auth/permissions.js';
import { Errors } from '../errors.js';
import type { Request } from '../http/request.js';
import { redirect } from '../http/respond.js';
import { type Reply, type Route, route } from '../http/types.js';
import { isId } from '../store/ids.js';
import type { InstanceRule, InstanceRuleStore } from '../store/instance-rules.js';
import type { InstanceTextStore } from '../store/instance-texts.js';
import type { WebDeps } from './deps.js';
import { type Html, html } from './html.js';
import { csrfField, formPost, pageReply, staff } from './layout.js';
import type { PageContext } from './session.js';

export interface AdminRulesPageDeps {
  readonly rules: InstanceRuleStore;
  readonly texts: InstanceTextStore;
  /** The instance documents show the rules: re-rendered after a change. */
  readonly rulesChanged: () => void;
}

const BASE = '/admin/rules';
// Mastodon's Rule: text up to 300 characters, hint up to 2,000 (its form's limits).
const MAX_RULE = 300;
const MAX_HINT = 2000;
const MAX_TEXT = 50_000;

const RuleForm = z.object({
  text: z
    .string({ error: "Text can't be blank" })
    .transform((t) => t.trim())
    .pipe(z.string().min(1, "Text can't be blank").max(MAX_RULE, `Text is too long (at most ${MAX_RULE} characters)`)),
  hint: z
    .string()
    .optional()
    .transform((t) => t?.trim() ?? '')
    .pipe(z.string().max(MAX_HINT, `Hint is too long (at most ${MAX_HINT} characters)`)),
  priority: z
    .string()
    .optional()
    .transform((t) => (t?.trim() ? Number(t) : 0))
    .pipe(z.number({ error: 'Priority must be a whole number' }).int('Priority must be a whole number').min(-10_000).max(10_000)),
});

const long = (name: string) => z.string().max(MAX_TEXT, `The ${name} is too long (at most ${MAX_TEXT} characters)`).optional();
const TextsForm = z.object({
  extended_description: long('extended description'),
  privacy_policy: long('privacy policy'),
  terms_of_service: long('terms of service'),
  terms_effective_date: z
    .string()
    .optional()
    .refine((v) => !v?.trim() || /^\d{4}-\d{2}-\d{2}$/.test(v.trim()), 'The terms need the day they take effect (YYYY-MM-DD)'),
  peers_api_enabled: z.string().optional(),
  activity_api_enabled: z.string().optional(),
});

const NOTICES: Record<string, string> = {
  created: 'Rule added.',
  updated: 'Rule saved.',
  removed: 'Rule removed.',
  texts: 'Texts and settings saved.',
};

export function adminRulesPageRoutes(d: WebDeps, p: AdminRulesPageDeps): Route[] {
  const title = d.config.instance.title;
  const nav = html`<nav><strong>Administration › Rules</strong><a href="/admin/announcements">Announcements</a><a href="/">Home</a></nav>`;

  const ruleFields = (r: Partial<InstanceRule>, prefix: string): Html => html`
      <label for="${prefix}text">Rule</label>
      <input type="text" id="${prefix}text" name="text" maxlength="${MAX_RULE}" required value="${r.text ?? ''}">
      <label for="${prefix}hint">Hint (optional)</label>
      <input type="text" id="${prefix}hint" name="hint" maxlength="${MAX_HINT}" value="${r.hint ?? ''}">
      <label for="${prefix}priority">Priority (lower first)</label>
      <input type="number" id="${prefix}priority" name="priority" value="${String(r.priority ?? 0)}">`;

  const textsForm = async (ctx: PageContext): Promise<Html> => {
    if (!ctx.user || !hasPermission(ctx.user.permissions, 'manageSettings')) return html``;
    const [extended, privacy, terms, peers, activity] = await Promise.all([
      p.texts.text('extended_description'),
      p.texts.text('privacy_policy'),
      p.texts.terms(),
      p.texts.enabled('peers_api_enabled'),
      p.texts.enabled('activity_api_enabled'),
    ]);
    const latest = terms.at(-1);
    return html`<h2>About this server</h2>
      <form id="texts" method="post" action="${BASE}/texts">${csrfField(ctx)}
      <label for="extended_description">Extended description (plain text)</label>
      <textarea id="extended_description" name="extended_description" rows="5">${extended?.text ?? ''}</textarea>
      <label for="privacy_policy">Privacy policy (plain text)</label>
      <textarea id="privacy_policy" name="privacy_policy" rows="5">${privacy?.text ?? ''}</textarea>
      <label for="terms_of_service">Terms of service (plain text; saved as the version taking effect on the day below, empty removes that day's version)</label>
      <textarea id="terms_of_service" name="terms_of_service" rows="5">${latest?.text ?? ''}</textarea>
      <label for="terms_effective_date">Terms take effect on (YYYY-MM-DD)</label>
      <input type="date" id="terms_effective_date" name="terms_effective_date" value="${latest?.effectiveDate ?? ''}">
      ${terms.length ? html`<p id="terms-versions">Versions: ${terms.map((t) => t.effectiveDate).join(', ')}</p>` : ''}
      <p><label><input type="checkbox" id="peers_api_enabled" name="peers_api_enabled" value="1"${peers ? html` checked` : ''}> Publish the list of known servers (/api/v1/instance/peers)</label></p>
      <p><label><input type="checkbox" id="activity_api_enabled" name="activity_api_enabled" value="1"${activity ? html` checked` : ''}> Publish weekly activity (/api/v1/instance/activity)</label></p>
      <button type="submit">Save texts</button></form>`;
  };

  const listPage = async (status: number, ctx: PageContext, notice: { done?: string; error?: string; form?: Partial<InstanceRule> }): Promise<Reply> => {
    const rules = await p.rules.list();
    return pageReply(
      status,
      'Rules',
      html`${nav}
      ${notice.error ? html`<p class="error" id="error">${notice.error}</p>` : ''}
      ${notice.done && NOTICES[notice.done] ? html`<p class="notice" id="done">${NOTICES[notice.done]}</p>` : ''}
      ${
        rules.length === 0
          ? html`<p id="no-rules">No rule yet.</p>`
          : html`<ol id="rules">${rules.map(
              (r) => html`<li data-id="${r.id}"><span class="text">${r.text}</span> <span class="hint">${r.hint}</span>
              <a class="edit" href="${BASE}/${r.id}">Edit</a>
              <form class="inline" method="post" action="${BASE}/${r.id}/remove">${csrfField(ctx)}<button class="secondary remove" type="submit">Remove</button></form></li>`,
            )}</ol>`
      }
      <h2>Add a rule</h2>
      <form id="add-rule" method="post" action="${BASE}">${csrfField(ctx)}
      ${ruleFields(notice.form ?? {}, '')}
      <button type="submit">Add rule</button></form>
      ${await textsForm(ctx)}`,
      title,
      ctx,
    );
  };

  const editPage = (status: number, ctx: PageContext, r: InstanceRule, error?: string): Reply =>
    pageReply(
      status,
      'Edit rule',
      html`${nav}
      <p><a href="${BASE}">All rules</a></p>
      ${error ? html`<p class="error" id="error">${error}</p>` : ''}
      <form id="edit-rule" method="post" action="${BASE}/${r.id}">${csrfField(ctx)}
      ${ruleFields(r, '')}
      <button type="submit">Save</button></form>`,
      title,
      ctx,
    );

  const RULES = staff('manageRules');
  const ruleOf = async (req: Request): Promise<InstanceRule> => {
    const id = req.params['id']!;
    const r = isId(id) ? await p.rules.byId(id) : undefined;
    if (!r) throw Errors.notFound();
    return r;
  };
  const typed = (req: Request): Partial<InstanceRule> => ({
    text: typeof req.fields['text'] === 'string' ? req.fields['text'] : '',
    hint: typeof req.fields['hint'] === 'string' ? req.fields['hint'] : '',
  });

  return [
    route({
      method: 'GET',
      path: BASE,
      auth: RULES,
      handler: async (req, ctx) => {
        const done = req.query['done'];
        return listPage(200, ctx, typeof done === 'string' ? { done } : {});
      },
    }),
    route({ method: 'GET', path: `${BASE}/:id`, auth: RULES, handler: async (req, ctx) => editPage(200, ctx, await ruleOf(req)) }),
    route({
      ...formPost(d.config, BASE),
      auth: RULES,
      handler: async (req, ctx) => {
        const f = RuleForm.safeParse(req.fields);
        if (!f.success) return listPage(422, ctx, { error: f.error.issues[0]!.message, form: typed(req) });
        const r = await p.rules.create(f.data.text, f.data.hint, f.data.priority);
        p.rulesChanged();
        d.log.info({ rule: r.id, by: ctx.user.accountId }, 'rule added');
        return redirect(`${BASE}?done=created`, undefined, 303);
      },
    }),
    route({
      ...formPost(d.config, `${BASE}/texts`),
      auth: staff('manageSettings'),
      handler: async (req, ctx) => {
        const f = TextsForm.safeParse(req.fields);
        if (!f.success) return listPage(422, ctx, { error: f.error.issues[0]!.message });
        const v = f.data;
        await p.texts.setText('extended_description', v.extended_description ?? '');
        await p.texts.setText('privacy_policy', v.privacy_policy ?? '');
        const date = v.terms_effective_date?.trim();
        if (date) await p.texts.setTerms(date, v.terms_of_service ?? '');
        await p.texts.setEnabled('peers_api_enabled', v.peers_api_enabled !== undefined);
        await p.texts.setEnabled('activity_api_enabled', v.activity_api_enabled !== undefined);
        d.log.info({ by: ctx.user.accountId }, 'instance texts saved');
        return redirect(`${BASE}?done=texts`, undefined, 303);
      },
    }),
    route({
      ...formPost(d.config, `${BASE}/:id`),
      auth: RULES,
      handler: async (req, ctx) => {
        const r = await ruleOf(req);
        const f = RuleForm.safeParse(req.fields);
        if (!f.success) return editPage(422, ctx, r, f.error.issues[0]!.message);
        if (!(await p.rules.update(r.id, f.data.text, f.data.hint, f.data.priority))) throw Errors.notFound();
        p.rulesChanged();
        d.log.info({ rule: r.id, by: ctx.user.accountId }, 'rule edited');
        return redirect(`${BASE}?done=updated`, undefined, 303);
      },
    }),
    route({
      ...formPost(d.config, `${BASE}/:id/remove`),
      auth: RULES,
      handler: async (req, ctx) => {
        const r = await ruleOf(req);
        if (!(await p.rules.remove(r.id))) throw Errors.notFound();
        p.rulesChanged();
        d.log.info({ rule: r.id, by: ctx.user.accountId }, 'rule removed');
        return redirect(`${BASE}?done=removed`, undefined, 303);
      },
    }),
  ];
}
