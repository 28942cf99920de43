// Waiting on a promise no longer than a signal allows: the wait ends with `reason()` when the signal aborts, while
// the promise itself runs on (its later failure is handled here, never unhandled).
export function untilAborted<T>(p: Promise<T>, signal: AbortSignal, reason: () => Error): Promise<T> {
  if (signal.aborted) {
    p.catch(() => undefined);
    return Promise.reject(reason());
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(reason());
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
