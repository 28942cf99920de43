// Remote history (ours; issue 16): a member reads a remote account's history record and asks for more of it ("Load
// older posts"); the first page of a remote account's statuses viewed by a member asks for the initial fetch
// (profileViewed, called by timelines.ts); the operator reads and changes the feature's settings (Manage federation).
// The work itself is queued in the database (store/remote-history.ts) and done by the history scheduler.
import { z } from 'zod';
import { historySettingsEntity, remoteHistoryEntity } from '../entities/remote-history.js';
import { Errors } from '../errors.js';
import type { Request } from '../http/request.js';
import { json } from '../http/respond.js';
import { route, type Route } from '../http/types.js';
import { memberIdOf } from './callers.js';
import type { Logger } from '../log.js';
import type { Account, AccountStore } from '../store/accounts.js';
import type { PruneResult } from '../store/history-prune.js';
import type { HistorySettingsStore } from '../store/history-settings.js';
import type { HistorySettings } from '../store/history-types.js';
import { isId } from '../store/ids.js';
import { idleRecord, type OriginBusy, type RemoteHistoryStore } from '../store/remote-history.js';
import { given, invalid, railsBool } from './params.js';

export interface RemoteHistoryApiDeps {
  readonly log: Logger;
  readonly accounts: AccountStore;
  readonly histories: RemoteHistoryStore;
  readonly settings: HistorySettingsStore;
  /** The settings changed: the scheduler may have work to start (feature switched on). */
  readonly onSettingsChanged: () => void;
  /** One manual prune batch (store/history-prune.ts) by this operator, its media cleanup queued. */
  readonly prune: (byAccountId: string) => Promise<PruneResult>;
}

const RETENTION = { min: 1, max: 3650 } as const;

/** The 429's message: which of the origin's limits is reached (1 running and 2 queued), and why nothing runs, if so. */
export function busyMessage(why: OriginBusy, queued: number): string {
  const limits = 'one job running and two queued per origin';
  switch (why) {
    case 'fetching':
      return `This server is already fetching history from that origin, with ${queued} more of its accounts queued (${limits})`;
    case 'starting':
      return `This server is about to fetch history from that origin, with ${queued - 1} more of its accounts queued (${limits})`;
    case 'origin_backoff':
      return `That origin asked this server to wait before fetching from it again, and ${queued} of its accounts are queued for then (${limits})`;
  }
}

// Form bodies carry numbers as digit strings; JSON as numbers.
const retentionDays = z.preprocess(
  (v) => (typeof v === 'string' && /^\d{1,9}$/.test(v) ? Number(v) : v),
  z
    .number({ error: 'must be a whole number of days' })
    .int('must be a whole number of days')
    .min(RETENTION.min, `must be between ${RETENTION.min} and ${RETENTION.max}`)
    .max(RETENTION.max, `must be between ${RETENTION.min} and ${RETENTION.max}`),
);

const SettingsBody = z.object({
  enabled: railsBool.optional(),
  bare_iri: railsBool.optional(),
  retention_days: retentionDays.optional(),
});

/** The remote account a member's history request is about: 404 unknown or deleted, 422 local. */
async function remoteAccount(accounts: AccountStore, req: Request): Promise<Account> {
  const id = req.params['id']!;
  const a = isId(id) ? await accounts.byId(id) : undefined;
  if (!a || a.deletedAt || (a.domain === null && !a.hasUser)) throw Errors.notFound();
  if (a.domain === null) throw Errors.unprocessable('Remote history exists only for remote accounts');
  return a;
}

export function remoteHistoryRoutes(d: RemoteHistoryApiDeps): Route[] {
  const entityOf = async (a: Account, enabled: boolean) => remoteHistoryEntity((await d.histories.get(a.id)) ?? idleRecord(a.id, a.domain ?? ''), enabled);

  return [
    route({
      method: 'GET',
      path: '/api/v1/accounts/:id/remote_history',
      auth: { scopes: ['read'], member: true },
      handler: async (req) => {
        const a = await remoteAccount(d.accounts, req);
        const { enabled } = await d.settings.current();
        return json(200, await entityOf(a, enabled));
      },
    }),
    route({
      method: 'POST',
      path: '/api/v1/accounts/:id/remote_history/fetch',
      auth: { scopes: ['read'], member: true },
      handler: async (req) => {
        const a = await remoteAccount(d.accounts, req);
        if (!(await d.settings.current()).enabled) throw Errors.forbidden('Remote history is disabled on this server');
        const outcome = await d.histories.request(a, 'older');
        if (outcome.kind === 'origin_busy') throw Errors.tooManyRequests(outcome.retryAfterSeconds, busyMessage(outcome.why, outcome.queued));
        return json(outcome.kind === 'queued' ? 202 : 200, remoteHistoryEntity(outcome.record, true));
      },
    }),
    route({
      method: 'GET',
      path: '/api/v1/admin/remote_history',
      auth: { scopes: ['admin:read'], member: true, permission: 'manageFederation' },
      handler: async () => json(200, historySettingsEntity(await d.settings.current())),
    }),
    route({
      method: 'PUT',
      path: '/api/v1/admin/remote_history',
      auth: { scopes: ['admin:write'], member: true, permission: 'manageFederation' },
      body: true,
      handler: async (req, who) => {
        const by = memberIdOf(who);
        const p = SettingsBody.safeParse(given(req.fields));
        if (!p.success) throw invalid(p.error);
        const change: { -readonly [K in keyof HistorySettings]?: HistorySettings[K] } = {};
        if (p.data.enabled !== undefined) change.enabled = p.data.enabled;
        if (p.data.bare_iri !== undefined) change.bareIri = p.data.bare_iri;
        if (p.data.retention_days !== undefined) change.retentionDays = p.data.retention_days;
        const next = await d.settings.update(change);
        d.log.info({ by, change }, 'remote history settings changed');
        d.onSettingsChanged();
        return json(200, historySettingsEntity(next));
      },
    }),
    route({
      method: 'POST',
      path: '/api/v1/admin/remote_history/prune',
      auth: { scopes: ['admin:write'], member: true, permission: 'manageFederation' },
      handler: async (_req, who) => {
        const by = memberIdOf(who);
        const r = await d.prune(by);
        d.log.info({ by, ...r }, 'remote history pruned by an operator');
        return json(200, { removed: r.removed, media_queued: r.mediaQueued });
      },
    }),
  ];
}

/**
 * What a member's view of the first page of a remote account's statuses does: refresh the retention clock and, with
 * the feature on and nothing asked yet, queue the initial fetch. It never fails the view: a refusal (origin busy)
 * or an error is only logged. One statement when the record exists already.
 */
export function profileViewed(d: Pick<RemoteHistoryApiDeps, 'log' | 'histories' | 'settings'>): (a: Account) => Promise<void> {
  return async (a) => {
    try {
      const state = await d.histories.touchViewed(a.id);
      if (state !== null && state !== 'idle') return;
      if (!(await d.settings.current()).enabled) return;
      const outcome = await d.histories.request(a, 'initial');
      if (outcome.kind === 'origin_busy') d.log.debug({ account: a.id }, 'initial history fetch not queued: origin busy');
    } catch (err) {
      d.log.warn({ err, account: a.id }, 'initial history fetch could not be requested');
    }
  };
}
