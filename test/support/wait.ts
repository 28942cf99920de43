// Polling for effects that happen asynchronously (deliveries, inbox processing): retries an assertion until it
// passes or the deadline ends, then rethrows its last failure.
export async function eventually(check: () => Promise<void> | void, timeoutMs = 8_000, everyMs = 50): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (e) {
      if (Date.now() > deadline) throw e;
      await new Promise((r) => setTimeout(r, everyMs));
    }
  }
}

/**
 * The promise's value, or a failure naming what did not happen within ms: a regression shows as a clear message at
 * once, not as the runner's whole-file timeout.
 */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
