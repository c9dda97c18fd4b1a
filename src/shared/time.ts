/** Resource-style timestamp: ISO 8601 with milliseconds, UTC (2026-11-21T10:00:00.000Z). */
export function toIso(ms: number): string {
  return new Date(ms).toISOString();
}

/** Legacy-style timestamp: whole Unix seconds. */
export function toUnixSeconds(ms: number): number {
  return Math.floor(ms / 1000);
}
