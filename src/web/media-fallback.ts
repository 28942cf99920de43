// Direct-origin media fallback (the member preference `media:origin_fallback`): an attachment is always loaded
// through our media proxy; only on the pages of a member who chose the fallback does it also carry its origin
// address (data-origin), and this script, loaded before the attachments, swaps to it once when the proxy fails.
// A script file rather than an inline onerror attribute: the pages' CSP allows no inline script.
import { PUBLIC, type Reply, type Route } from '../http/types.js';

export const MEDIA_FALLBACK_SCRIPT_PATH = '/web/media-fallback.js';

const SCRIPT = `document.addEventListener('error', function (e) {
  var t = e.target;
  if (!(t instanceof HTMLImageElement || t instanceof HTMLMediaElement)) return;
  var origin = t.getAttribute('data-origin');
  if (!origin || t.getAttribute('data-fell-back')) return;
  t.setAttribute('data-fell-back', '1');
  t.src = origin;
}, true);
`;

export function mediaFallbackScriptRoutes(): Route[] {
  const reply: Reply = {
    status: 200,
    headers: { 'Content-Type': 'text/javascript; charset=utf-8', 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'public, max-age=3600' },
    body: SCRIPT,
  };
  return [{ method: 'GET', path: MEDIA_FALLBACK_SCRIPT_PATH, auth: PUBLIC, handler: () => reply }];
}
