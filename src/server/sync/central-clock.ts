/**
 * How far this node's clock is from central's, read from the Date header of central's replies
 * (whole seconds, so the figure is good to about a second). A store dates what it sells by its own
 * clock: one days ahead left its sales out of central's dashboard, expired points early and kept
 * its offline caps' window open (found by an exploratory run); nothing said so.
 */
export class CentralClock {
  #offsetMs: number | null = null;

  constructor(private readonly now: () => number) {}

  /** `sentAt` and `receivedAt` by this node's clock; `date` the reply's Date header. */
  observe(sentAt: number, receivedAt: number, date: string | null): void {
    const centralAt = date === null ? Number.NaN : Date.parse(date);
    if (!Number.isFinite(centralAt)) return;
    // Central's moment lies in [centralAt, centralAt + 1 s): compare with the request's middle.
    this.#offsetMs = (sentAt + receivedAt) / 2 - (centralAt + 500);
  }

  /** Now, by this node's clock (a request's leaving and its reply's arrival). */
  localNow(): number {
    return this.now();
  }

  /** Seconds this node's clock is ahead of central's (negative: behind); null before any reply. */
  offsetSeconds(): number | null {
    return this.#offsetMs === null ? null : Math.round(this.#offsetMs / 1000);
  }
}
