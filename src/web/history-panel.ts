// The history panel of a remote profile page (issue 17): a remote actor's history record in words, its numbers,
// and the Load older posts form while more is available and the viewer is a member.
import type { HistoryRecord, HistoryReason } from '../store/history-types.js';
import { html, type Html } from './html.js';
import { csrfField } from './layout.js';
import type { PageContext } from './session.js';

const REASONS: Record<HistoryReason, string> = {
  actor_type: 'this kind of account has no history to fetch',
  no_outbox: 'the account publishes no outbox',
  not_found: 'its outbox was not found',
  gone: 'the account is gone',
  forbidden: 'forbidden',
  not_a_collection: 'its outbox is not a collection',
  too_large: 'its outbox is too large to read',
  attribution: 'its posts are not attributed to it',
  cross_origin: 'its outbox lies on another server',
  federation_policy: 'this server does not federate with it',
  rate_limited: 'rate-limited',
  timeout: 'timed out',
  transport: 'could not be reached',
  server_error: 'answered with an error',
};

/** "14:05 UTC": pages are rendered on the server, which knows no viewer's time zone. */
function clockTime(d: Date): string {
  return `${d.toISOString().slice(11, 16)} UTC`;
}

/** The state in words. */
export function historyWords(r: HistoryRecord, enabled: boolean, host: string): Html {
  if (!enabled && r.state !== 'complete') return html`Older posts are not fetched on this server`;
  const at = (d: Date | null) => (d ? html`<time datetime="${d.toISOString()}">${clockTime(d)}</time>` : html`soon`);
  switch (r.state) {
    case 'idle':
      return html`Older posts have not been asked for`;
    case 'queued':
      return html`Older posts are queued…`;
    case 'fetching':
      return html`Fetching older posts…`;
    case 'partial':
      return html`${r.itemsImported} older posts loaded; more are available`;
    case 'complete':
      return html`All public posts are here`;
    case 'unsupported':
      if (r.reason === 'forbidden' || r.reason === 'federation_policy') return html`This server refuses us: ${REASONS[r.reason]}`;
      return html`Older posts cannot be fetched: ${r.reason ? REASONS[r.reason] : 'unsupported'}`;
    case 'backoff':
      if (r.reason === 'rate_limited') return html`Rate-limited by ${host}; retrying at ${at(r.retryAt)}`;
      return html`${host} ${r.reason ? REASONS[r.reason] : 'failed'}; retrying at ${at(r.retryAt)}`;
  }
}

/** Whether the page should reload itself to show progress. */
export function historyInProgress(r: HistoryRecord): boolean {
  return r.state === 'queued' || r.state === 'fetching';
}

export function historyPanel(r: HistoryRecord, enabled: boolean, host: string, ctx: PageContext, formAction: string): Html {
  const button =
    ctx.user && enabled && r.state === 'partial'
      ? html`<form method="post" action="${formAction}">${csrfField(ctx)}<button type="submit">Load older posts</button></form>`
      : '';
  return html`<section class="history">
<h2>Older posts</h2>
<p class="history-state">${historyWords(r, enabled, host)}</p>
<p class="history-numbers"><span class="imported">${r.itemsImported}</span> imported of <span class="examined">${r.itemsExamined}</span> examined · <span class="pages">${r.pagesFetched}</span> pages · <span class="attempts">${r.attempts}</span> failed attempts${r.retryAt && r.state === 'backoff' ? html` · next try <time class="retry-at" datetime="${r.retryAt.toISOString()}">${clockTime(r.retryAt)}</time>` : ''}</p>
${button}
</section>`;
}
