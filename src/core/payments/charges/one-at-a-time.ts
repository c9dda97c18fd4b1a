import type { Engine } from '../../engine';

// Requests for one idempotency key run one after another in a node: a double-clicked purchase's
// second request waits for the first and then answers as a retry would (the charge as it stands).
// Without it, the second found the charge still `created` and re-sent it; a guest's eGift card is
// tokenized per request, so the re-send carried another token under the same gateway key, which
// the processor refuses (Stripe: "keys can only be used with the same parameters"): a false 503.

const running = new WeakMap<Engine, Map<string, Promise<unknown>>>();

/** Runs `run` once every earlier call with the same key in this node has finished (either way). */
export async function oneAtATime<T>(engine: Engine, key: string, run: () => Promise<T>): Promise<T> {
  let queue = running.get(engine);
  if (!queue) running.set(engine, (queue = new Map()));
  const before = queue.get(key) ?? Promise.resolve();
  const mine = before.then(() => run());
  const settled = mine.then(
    () => undefined,
    () => undefined,
  );
  queue.set(key, settled);
  try {
    return await mine;
  } finally {
    if (queue.get(key) === settled) queue.delete(key);
  }
}
