// Small per-member endpoints clients call at start-up: preferences, reading markers, and the custom emoji list
// (Stoa has no custom emoji yet: an empty list, as a server without any answers).
import { z } from 'zod';
import { Errors } from '../errors.js';
import { json } from '../http/respond.js';
import { PUBLIC, route, type Route } from '../http/types.js';
import { idWith, invalid } from './params.js';
import { MARKER_TIMELINES, type MarkerStore, type MarkerTimeline } from '../store/markers.js';
import type { MemberPreferenceStore } from '../store/member-preferences.js';

const Position = z.object({ last_read_id: idWith('last_read_id must be an id') });
const MarkerBody = z.object({ home: Position.optional(), notifications: Position.optional() });

export interface PreferenceDeps {
  readonly markers: MarkerStore;
  readonly memberPreferences: MemberPreferenceStore;
}

export function preferenceRoutes(d: PreferenceDeps): Route[] {
  const markersJson = async (accountId: string, timelines: readonly MarkerTimeline[]) => {
    const out: Record<string, unknown> = {};
    for (const m of await d.markers.get(accountId, timelines)) {
      out[m.timeline] = { last_read_id: m.lastReadId, version: m.version, updated_at: m.updatedAt.toISOString() };
    }
    return out;
  };
  return [
    route({
      method: 'GET',
      path: '/api/v1/preferences',
      auth: { scopes: ['read:accounts'], member: true },
      handler: async (_req, who) => {
        const u = who.record.user;
        return json(200, {
          'posting:default:visibility': u.defaultPrivacy,
          'posting:default:sensitive': u.defaultSensitive,
          'posting:default:language': u.defaultLanguage,
          'posting:default:quote_policy': 'public',
          'reading:expand:media': 'default',
          'reading:expand:spoilers': false,
          'reading:autoplay:gifs': false,
          // Stoa's own: set on /settings/preferences (web/preferences-page.ts).
          'media:origin_fallback': await d.memberPreferences.originFallback(u.userId),
        });
      },
    }),
    { method: 'GET', path: '/api/v1/custom_emojis', auth: PUBLIC, handler: () => json(200, []) },
    route({
      method: 'GET',
      path: '/api/v1/markers',
      auth: { scopes: ['read:statuses'], member: true },
      handler: async (req, who) => {
        const me = who.record.user.accountId;
        const raw = req.query['timeline'];
        const asked = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).filter((t): t is MarkerTimeline => MARKER_TIMELINES.some((m) => m === t));
        return json(200, await markersJson(me, asked.length ? asked : MARKER_TIMELINES));
      },
    }),
    route({
      method: 'POST',
      path: '/api/v1/markers',
      auth: { scopes: ['write:statuses'], member: true },
      body: true,
      handler: async (req, who) => {
        const me = who.record.user.accountId;
        const parsed = MarkerBody.safeParse(req.fields);
        if (!parsed.success) throw invalid(parsed.error);
        const set = MARKER_TIMELINES.filter((t) => parsed.data[t]);
        if (set.length === 0) throw Errors.validation('home or notifications must be given');
        for (const t of set) await d.markers.set(me, t, parsed.data[t]!.last_read_id);
        return json(200, await markersJson(me, set));
      },
    }),
  ];
}
