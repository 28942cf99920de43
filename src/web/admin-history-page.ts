// Administration › History (issue 17), for members whose role may manage federation: the remote-history settings
// (the same settings row as /api/v1/admin/remote_history, so a change reaches every node the same way), the live
// state of history jobs per origin, totals of history posts and their media, the last prune runs, and Prune now
// (the same batch as POST /api/v1/admin/remote_history/prune).
//
// Media bytes: a remote attachment has no size until the media proxy keeps a copy, so the page counts attachments
// and sums the bytes of the cached copies only (saying so).
import { z } from 'zod';
import { redirect } from '../http/respond.js';
import { type Route, route } from '../http/types.js';
import { humanBytes } from '../media/limits.js';
import type { HistoryPruneStore, PruneResult } from '../store/history-prune.js';
import type { HistorySettingsStore } from '../store/history-settings.js';
import type { HistorySettings } from '../store/history-types.js';
import type { WebDeps } from './deps.js';
import { html } from './html.js';
import { csrfField, formPost, pageReply, staff } from './layout.js';
import type { PageContext } from './session.js';

export interface AdminHistoryPageDeps {
  readonly settings: HistorySettingsStore;
  readonly prune: HistoryPruneStore;
  /** The settings changed (this node's scheduler looks for work; other nodes hear the NOTIFY). */
  readonly onSettingsChanged: () => void;
  /** One manual prune batch by this operator. */
  readonly pruneNow: (byAccountId: string) => Promise<PruneResult>;
}

const ORIGINS_SHOWN = 100;
const RUNS_SHOWN = 10;

// The same bounds as the API (api/remote-history.ts); a checkbox is absent when unchecked.
const SettingsForm = z.object({
  enabled: z.string().optional(),
  bare_iri: z.string().optional(),
  retention_days: z
    .string({ error: 'Retention is required' })
    .regex(/^\d{1,9}$/, 'Retention must be a whole number of days')
    .transform(Number)
    .pipe(z.number().min(1, 'Retention must be between 1 and 3650 days').max(3650, 'Retention must be between 1 and 3650 days')),
});

const when = (t: Date) => `${t.toISOString().replace('T', ' ').slice(0, 19)} UTC`;
const num = (q: unknown) => (typeof q === 'string' && /^\d{1,9}$/.test(q) ? Number(q) : null);

export function adminHistoryPageRoutes(d: WebDeps, h: AdminHistoryPageDeps): Route[] {
  const title = d.config.instance.title;

  const render = async (status: number, ctx: PageContext, notice: { pruned?: PruneResult; saved?: boolean; error?: string }) => {
    const [s, origins, totals, runs] = await Promise.all([
      h.settings.current(),
      h.prune.origins(ORIGINS_SHOWN),
      h.prune.totals(),
      h.prune.recentRuns(RUNS_SHOWN),
    ]);
    return pageReply(
      status,
      'History',
      html`
      <nav><strong>Administration › History</strong><a href="/admin/domain_blocks">Domain blocks</a><a href="/admin/reports">Reports</a><a href="/">Home</a></nav>
      ${notice.error ? html`<p class="error" id="error">${notice.error}</p>` : ''}
      ${notice.saved ? html`<p id="saved">Settings saved.</p>` : ''}
      ${
        notice.pruned
          ? html`<p id="prune-result">Removed ${notice.pruned.removed} history ${notice.pruned.removed === 1 ? 'post' : 'posts'}; cleanup of ${notice.pruned.mediaQueued} media ${notice.pruned.mediaQueued === 1 ? 'attachment' : 'attachments'} queued.</p>`
          : ''
      }
      <h2>Settings</h2>
      ${settingsForm(ctx, s)}
      <h2>Origins</h2>
      ${
        origins.length === 0
          ? html`<p id="no-origins">No remote history has been asked for yet.</p>`
          : html`<table id="origins"><thead><tr><th>Origin</th><th>Running</th><th>Queued</th><th>Backoff until</th><th>Last error</th></tr></thead><tbody>
        ${origins.map(
          (o) => html`<tr data-origin="${o.origin}"><td>${o.origin}</td><td>${String(o.running)}</td><td>${String(o.queued)}</td>
          <td>${o.backoffUntil && o.backoffUntil.getTime() > Date.now() ? when(o.backoffUntil) : '—'}</td><td>${o.lastError ?? '—'}</td></tr>`,
        )}
        </tbody></table>`
      }
      <h2>Totals</h2>
      <table id="totals"><tbody>
        <tr><th>History posts</th><td id="total-posts">${String(totals.posts)}</td></tr>
        <tr><th>Their media attachments</th><td id="total-media">${String(totals.media)}</td></tr>
        <tr><th>Cached copies (bytes known only for these)</th><td id="total-cached">${String(totals.cachedMedia)} · ${humanBytes(totals.cachedBytes)}</td></tr>
      </tbody></table>
      <h2>Pruning</h2>
      <p>Removes at most 200 history posts whose profile was not viewed for ${String(s.retentionDays)} days, except those a member of this server bookmarked, favourited, pinned, reacted to, voted in, replied to, boosted, quoted or reported. An hourly sweep does the same.</p>
      <form method="post" action="/admin/history/prune">${csrfField(ctx)}<button id="prune-now" type="submit">Prune now</button></form>
      ${
        runs.length === 0
          ? html`<p id="no-runs">No prune has run yet.</p>`
          : html`<table id="runs"><thead><tr><th>When</th><th>Kind</th><th>Posts removed</th><th>Media queued</th></tr></thead><tbody>
        ${runs.map((r) => html`<tr><td>${when(r.ranAt)}</td><td>${r.kind}</td><td>${String(r.removed)}</td><td>${String(r.mediaQueued)}</td></tr>`)}
        </tbody></table>`
      }`,
      title,
      ctx,
    );
  };

  const settingsForm = (ctx: PageContext, s: HistorySettings) =>
    html`<form id="settings" method="post" action="/admin/history/settings">${csrfField(ctx)}
      <p><label><input type="checkbox" name="enabled" value="1"${s.enabled ? html` checked` : ''}> Fetch the history of remote profiles members open</label></p>
      <p><label><input type="checkbox" name="bare_iri" value="1"${s.bareIri ? html` checked` : ''}> Resolve bare object addresses in outboxes</label></p>
      <p><label>Retention (days, 1–3650) <input type="number" name="retention_days" min="1" max="3650" required value="${String(s.retentionDays)}"></label></p>
      <p><button type="submit">Save</button></p></form>`;

  const STAFF = staff('manageFederation');
  return [
    route({
      method: 'GET',
      path: '/admin/history',
      auth: STAFF,
      handler: async (req, ctx) => {
        const removed = num(req.query['removed']);
        const media = num(req.query['media_queued']);
        return render(200, ctx, {
          saved: req.query['saved'] === '1',
          ...(removed !== null && media !== null && { pruned: { removed, mediaQueued: media } }),
        });
      },
    }),
    route({
      ...formPost(d.config, '/admin/history/settings'),
      auth: STAFF,
      handler: async (req, ctx) => {
        const p = SettingsForm.safeParse(req.fields);
        if (!p.success) return render(422, ctx, { error: p.error.issues[0]!.message });
        const change = { enabled: p.data.enabled !== undefined, bareIri: p.data.bare_iri !== undefined, retentionDays: p.data.retention_days };
        await h.settings.update(change);
        h.onSettingsChanged();
        d.log.info({ by: ctx.user.accountId, change }, 'remote history settings changed');
        return redirect('/admin/history?saved=1', undefined, 303);
      },
    }),
    route({
      ...formPost(d.config, '/admin/history/prune'),
      auth: STAFF,
      handler: async (_req, ctx) => {
        const by = ctx.user.accountId;
        const r = await h.pruneNow(by);
        d.log.info({ by, ...r }, 'remote history pruned by an operator');
        return redirect(`/admin/history?removed=${r.removed}&media_queued=${r.mediaQueued}`, undefined, 303);
      },
    }),
  ];
}
