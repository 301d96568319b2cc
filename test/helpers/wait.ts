/**
 * Polls `probe` until it gives a truthy value, and returns that value. The
 * deadline is generous on purpose: background work (mail, webhooks, streams)
 * runs after the answer, on CI machines whose two cores are busy, sometimes
 * on PostgreSQL. Wait on the state a test depends on, never a fixed sleep.
 */
export async function waitFor<T>(what: string, probe: () => T | Promise<T>, timeoutMs = 15_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
