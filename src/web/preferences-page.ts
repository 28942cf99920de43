// Settings › Preferences (/settings/preferences): the member's own choices that pages and clients read:
// `media:origin_fallback` (GET /api/v1/preferences), whether their browser may load a remote post's media straight
// from its origin when our media proxy fails (off by default), and the languages they read in the public and hashtag
// feeds (Mastodon's chosen_languages, which no API sets: none ticked reads all). A POST with the CSRF token saves.
import { z } from 'zod';
import { Errors } from '../errors.js';
import { redirect } from '../http/respond.js';
import { type Route, route } from '../http/types.js';
import type { MemberPreferenceStore } from '../store/member-preferences.js';
import type { WebDeps } from './deps.js';
import { html } from './html.js';
import { LANGUAGES } from './languages.js';
import { csrfField, formPost, MEMBER, pageReply } from './layout.js';

const PATH = '/settings/preferences';

// An unchecked box sends nothing: absent is off, and no language ticked is every language.
const Form = z.object({
  media_origin_fallback: z.enum(['1']).optional(),
  chosen_languages: z
    .union([z.string(), z.array(z.string())])
    .transform((v) => (Array.isArray(v) ? v : [v]))
    .pipe(z.array(z.string().regex(/^[a-z]{2,3}$/, 'chosen_languages must be ISO 639 codes')).max(200))
    .optional(),
});

export function preferencesPageRoutes(web: WebDeps, prefs: MemberPreferenceStore): Route[] {
  return [
    route({
      method: 'GET',
      path: PATH,
      auth: MEMBER,
      handler: async (req, ctx) => {
        const [on, chosen] = await Promise.all([prefs.originFallback(ctx.user.userId), prefs.chosenLanguages(ctx.user.userId)]);
        // Every language offered, and any chosen one we do not list, so saving the page keeps it.
        const codes = [...LANGUAGES.keys(), ...(chosen ?? []).filter((c) => !LANGUAGES.has(c))];
        const boxes = codes.map(
          (c) =>
            html`<label><input type="checkbox" name="chosen_languages[]" id="lang-${c}" value="${c}" ${chosen?.includes(c) ? 'checked' : ''}> ${LANGUAGES.get(c) ?? c}</label> `,
        );
        const notice = req.query['saved'] === '1' ? html`<p class="notice" id="saved-notice" role="status">Preferences saved.</p>` : '';
        return pageReply(
          200,
          'Preferences',
          html`<nav><strong>Preferences</strong><a href="/">Home</a></nav>
${notice}
<form method="post" action="${PATH}">${csrfField(ctx)}
<label><input type="checkbox" id="media_origin_fallback" name="media_origin_fallback" value="1" ${on ? 'checked' : ''}>
Load media straight from the other server when this server cannot fetch it</label>
<p><small>Off, your browser only ever contacts this server. On, a remote post's picture, video or audio that this
server fails to fetch is loaded from the server it came from, which then sees your address.</small></p>
<fieldset id="chosen-languages"><legend>Languages of the posts you see in the public and hashtag timelines</legend>
${boxes}
<p><small>None ticked: posts in every language. A post whose language is not known is always shown.</small></p></fieldset>
<button type="submit">Save</button></form>`,
          web.config.instance.title,
          ctx,
        );
      },
    }),
    route({
      ...formPost(web.config, PATH),
      auth: MEMBER,
      handler: async (req, ctx) => {
        const parsed = Form.safeParse(req.fields);
        if (!parsed.success) throw Errors.validation(parsed.error.issues[0]?.message ?? 'invalid preferences');
        await prefs.setOriginFallback(ctx.user.userId, parsed.data.media_origin_fallback === '1');
        await prefs.setChosenLanguages(ctx.user.userId, parsed.data.chosen_languages ?? []);
        return redirect(`${PATH}?saved=1`, undefined, 303);
      },
    }),
  ];
}
