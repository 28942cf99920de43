// What answers when nothing better can: a response closed whatever state it is in, and a bare 500 for a request
// whose exchange never began (http/server.ts's prologue, a WebSocket upgrade).
import type { HttpResponse } from './uws.js';

export const INTERNAL_ERROR_HEADERS = Object.freeze({ 'Content-Type': 'application/json; charset=utf-8' });
export const INTERNAL_ERROR_BODY = '{"error":"Internal server error"}';

/** Closes a response; one already closed or aborted throws, and is gone anyway. */
export function closeQuietly(res: HttpResponse): void {
  try {
    res.close();
  } catch {
    // Already gone.
  }
}

/** A 500 for a request no exchange answers, if it can still be written; else its connection is closed. */
export function answerInternalError(res: HttpResponse): void {
  try {
    res.cork(() =>
      res.writeStatus('500 Internal Server Error').writeHeader('Content-Type', INTERNAL_ERROR_HEADERS['Content-Type']).end(INTERNAL_ERROR_BODY, true),
    );
  } catch {
    closeQuietly(res);
  }
}
