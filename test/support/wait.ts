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
