// The small instance entities beside the instance documents (Mastodon's REST::RuleSerializer,
// REST::ExtendedDescriptionSerializer, REST::PrivacyPolicySerializer, REST::TermsOfServiceSerializer, the activity
// weeks and the language list). Every count in the activity weeks is a string, as Mastodon sends them.
import type { ActivityWeek } from '../store/instance-activity.js';
import type { InstanceRule } from '../store/instance-rules.js';
import type { InstanceText, TermsVersion } from '../store/instance-texts.js';
import { plainTextToHtml } from '../text/plain-text.js';

/** Mastodon 4.4's Rule: `translations` by language, none here (a rule is written in one language). */
export function ruleEntity(r: InstanceRule) {
  return { id: r.id, text: r.text, hint: r.hint, translations: {} };
}

export type RuleEntity = ReturnType<typeof ruleEntity>;

export function activityEntity(w: ActivityWeek) {
  return {
    week: String(Math.floor(w.week.getTime() / 1000)),
    statuses: String(w.statuses),
    logins: String(w.logins),
    registrations: String(w.registrations),
  };
}

/** Extended description and privacy policy: the operator's plain text as paragraphs. */
export function instanceTextEntity(t: InstanceText | undefined) {
  return { updated_at: t ? t.updatedAt.toISOString() : null, content: t ? plainTextToHtml(t.text) : '' };
}

/** One version of the terms; `today` is YYYY-MM-DD (UTC), `next` the version after it, if any. */
export function termsEntity(t: TermsVersion, today: string, next: TermsVersion | undefined) {
  return {
    effective_date: t.effectiveDate,
    effective: t.effectiveDate <= today,
    content: plainTextToHtml(t.text),
    succeeded_by: next?.effectiveDate ?? null,
  };
}

// ISO 639-1, the languages Mastodon lets a post be written in (LanguagesHelper::ISO_639_1), named in English.
const ISO_639_1 =
  'aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs cu cv cy da de dv dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr ht hu hy hz ia id ie ig ii ik io is it iu ja jv ka kg ki kj kk kl km kn ko kr ks ku kv kw ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne ng nl nn no nr nv ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl sn so sq sr ss st su sv sw ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz ve vi vo wa wo xh yi yo za zh zu';

let languages: readonly { code: string; name: string }[] | undefined;

export function languageEntities(): readonly { code: string; name: string }[] {
  if (!languages) {
    const names = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'code' });
    languages = ISO_639_1.split(' ').map((code) => ({ code, name: names.of(code) ?? code }));
  }
  return languages;
}
