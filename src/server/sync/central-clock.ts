/**
 * How far this node's clock is from central's, read from the Date header of central's replies
 * (whole seconds, so the figure is good to about a second). A store that dated what it sold by its
 * own clock, days ahead, left its sales out of central's dashboard, expired points early and kept
 * its offline caps' window open (found by an exploratory run): `onMeasured` tells the store's
 * CentralAlignedClock, which then dates by central's time. `now` must be the machine's clock, not
 * that one (it would measure its own correction).
 */
export class CentralClock {
  #offsetMs: number | null = null;

  constructor(
    private readonly now: () => number,
    private readonly onMeasured?: (offsetMs: number) => void,
  ) {}

  /** `sentAt` and `receivedAt` by this node's clock; `date` the reply's Date header. */
  observe(sentAt: number, receivedAt: number, date: string | null): void {
    const centralAt = date === null ? Number.NaN : Date.parse(date);
    if (!Number.isFinite(centralAt)) return;
    // Central's moment lies in [centralAt, centralAt + 1 s): compare with the request's middle.
    this.#offsetMs = (sentAt + receivedAt) / 2 - (centralAt + 500);
    this.onMeasured?.(this.#offsetMs);
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
