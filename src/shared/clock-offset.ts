/** Past this, a store's clock is said to be off from central's, and a paired store dates by central's time (CentralAlignedClock). */
export const CLOCK_OFF_SECONDS = 120;

/** Whether a store's offset from central's clock (seconds; null before central answered) is worth a warning. */
export function clockIsOff(offsetSeconds: number | null): boolean {
  return offsetSeconds !== null && Math.abs(offsetSeconds) >= CLOCK_OFF_SECONDS;
}
