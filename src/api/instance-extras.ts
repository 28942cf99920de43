// Mastodon's Api::V1::Instances::* beside the instance documents: peers, activity, rules, extended description,
// privacy policy, terms of service (4.4), translation languages and languages; and the web app's peers search
// (Api::V1::Peers::SearchController). All public. Peers, their search and activity answer 404 when the operator
// switched them off (Mastodon's peers_api_enabled / activity_api_enabled, on by default).
import { domainToASCII } from 'node:url';
import type { Clock } from '../clock.js';
import { activityEntity, instanceTextEntity, languageEntities, ruleEntity, termsEntity } from '../entities/instance-extras.js';
import { Errors } from '../errors.js';
import { json } from '../http/respond.js';
import { PUBLIC, type Route } from '../http/types.js';
import type { InstanceActivityStore } from '../store/instance-activity.js';
import type { InstanceRuleStore } from '../store/instance-rules.js';
import type { InstanceTextStore, TermsVersion } from '../store/instance-texts.js';

/** How long a node keeps the instance's weekly activity. */
const ACTIVITY_KEPT_MS = 10 * 60_000;

export interface InstanceExtrasDeps {
  readonly clock: Clock;
  readonly activity: InstanceActivityStore;
  readonly rules: InstanceRuleStore;
  readonly texts: InstanceTextStore;
}

// Mastodon caches these publicly (a day for peers and activity): they change slowly and crawlers call them.
const DAY = { 'Cache-Control': 'public, max-age=86400' };
const DATE = /^\d{4}-\d{2}-\d{2}$/;
/** Mastodon's Peers::SearchController::LIMIT. */
const PEER_MATCHES = 10;

/**
 * The peers search's `q` as Mastodon's TagManager#normalize_domain makes it (one trailing slash dropped, the host
 * lower-cased and in punycode); undefined when it is no host name (Mastodon answers [] then).
 */
function searchedDomain(q: unknown): string | undefined {
  if (typeof q !== 'string' || q.trim() === '') return undefined;
  const host = domainToASCII(q.endsWith('/') ? q.slice(0, -1) : q);
  return host === '' ? undefined : host;
}

/** Mastodon's TermsOfService.current: the latest in effect, else the first still to come. */
function currentTerms(all: readonly TermsVersion[], today: string): TermsVersion | undefined {
  return all.filter((t) => t.effectiveDate <= today).at(-1) ?? all.find((t) => t.effectiveDate > today);
}

export function instanceExtrasRoutes(d: InstanceExtrasDeps): Route[] {
  const today = () => new Date(d.clock.now()).toISOString().slice(0, 10);
  // Twelve weeks counted over statuses, users and tokens: anyone may ask, so a node counts them at most every
  // ACTIVITY_KEPT_MS (Mastodon keeps them a day).
  let activity: { at: number; weeks: ReturnType<typeof activityEntity>[] } | undefined;
  const weeks = async () => {
    const now = d.clock.now();
    if (activity === undefined || now - activity.at >= ACTIVITY_KEPT_MS) {
      activity = { at: now, weeks: (await d.activity.weeks(new Date(now))).map(activityEntity) };
    }
    return activity.weeks;
  };
  const terms = async (date: string | undefined) => {
    const all = await d.texts.terms();
    const t = date === undefined ? currentTerms(all, today()) : all.find((x) => x.effectiveDate === date);
    if (!t) throw Errors.notFound();
    return json(200, termsEntity(t, today(), all[all.indexOf(t) + 1]));
  };
  return [
    {
      method: 'GET',
      path: '/api/v1/instance/peers',
      auth: PUBLIC,
      handler: async () => {
        if (!(await d.texts.enabled('peers_api_enabled'))) throw Errors.notFound();
        return json(200, await d.activity.peers(), DAY);
      },
    },
    {
      method: 'GET',
      path: '/api/v1/peers/search',
      auth: PUBLIC,
      handler: async (req) => {
        if (!(await d.texts.enabled('peers_api_enabled'))) throw Errors.notFound();
        // Mastodon renders nothing (null) for a blank q; [] is the same "no match" in the type clients expect.
        const domain = searchedDomain(req.query['q']);
        return json(200, domain === undefined ? [] : await d.activity.searchPeers(domain, PEER_MATCHES));
      },
    },
    {
      method: 'GET',
      path: '/api/v1/instance/activity',
      auth: PUBLIC,
      handler: async () => {
        if (!(await d.texts.enabled('activity_api_enabled'))) throw Errors.notFound();
        return json(200, await weeks(), DAY);
      },
    },
    {
      method: 'GET',
      path: '/api/v1/instance/rules',
      auth: PUBLIC,
      handler: async () => json(200, (await d.rules.list()).map(ruleEntity)),
    },
    {
      method: 'GET',
      path: '/api/v1/instance/extended_description',
      auth: PUBLIC,
      handler: async () => json(200, instanceTextEntity(await d.texts.text('extended_description'))),
    },
    {
      method: 'GET',
      path: '/api/v1/instance/privacy_policy',
      auth: PUBLIC,
      handler: async () => {
        // Mastodon falls back to its own template; a server whose operator wrote none has none to show.
        const t = await d.texts.text('privacy_policy');
        if (!t) throw Errors.notFound();
        return json(200, instanceTextEntity(t));
      },
    },
    { method: 'GET', path: '/api/v1/instance/terms_of_service', auth: PUBLIC, handler: () => terms(undefined) },
    {
      method: 'GET',
      path: '/api/v1/instance/terms_of_service/:date',
      auth: PUBLIC,
      handler: (req) => {
        const date = req.params['date']!;
        if (!DATE.test(date)) throw Errors.notFound();
        return terms(date);
      },
    },
    // No translation service: no language pairs (Mastodon answers {} when translation is off).
    { method: 'GET', path: '/api/v1/instance/translation_languages', auth: PUBLIC, handler: () => json(200, {}) },
    { method: 'GET', path: '/api/v1/instance/languages', auth: PUBLIC, handler: () => json(200, languageEntities(), DAY) },
  ];
}
