/**
 * What `probe` answers once it answers something (a probe that throws has not answered yet: a node
 * still starting, a request refused meanwhile), polled every 100 ms; fails naming `what` after
 * `timeoutMs`. For real processes, whose work the test cannot await.
 */
export async function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
