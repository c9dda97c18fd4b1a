/**
 * How long after a purchase its customer may rate it and tip (docs/decisions.md, "Client calls").
 * A rating can be changed until its window closes; a tip is given once.
 */
export const RATING_WINDOW_MS = 7 * 24 * 3_600_000;
export const TIP_WINDOW_MS = 24 * 3_600_000;

/** Kinds of history record that can be rated and tipped: purchases at a store. */
export const RATEABLE_KINDS: readonly string[] = ['order'];

/** Whole seconds left in a window that opened at `openedAt` (0 once closed): the history's `window`. */
export function secondsLeft(openedAt: number, windowMs: number, now: number): number {
  return Math.max(0, Math.floor((openedAt + windowMs - now) / 1000));
}
