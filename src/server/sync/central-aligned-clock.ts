import type { Clock } from '../../core/clock';
import { CLOCK_OFF_SECONDS, clockIsOff } from '../../shared/clock-offset';

/** Milliseconds from an arbitrary origin on a clock nobody sets: it only runs forward. */
const monotonicMs = (): number => performance.now();

/**
 * Central's measures carry the Date header's whole second and half a round trip: a new measure this
 * close to the time already answered leaves it alone, so a store's time does not jitter.
 */
const SAME_TIME_MS = 2_000;

/**
 * A paired store's clock. It answers the machine's time until central's replies show the machine
 * off by CLOCK_OFF_SECONDS or more; then central's time, as central's moment last measured plus
 * the monotonic time elapsed since. So a store whose computer is years behind dates its sales,
 * their points' expiry and its caps' windows as central does, and goes on doing so offline, even
 * if someone sets the computer's clock meanwhile. Kept in memory; a store restarted without central
 * resumes from the last time central told it (`resumeFrom`) when its machine says earlier.
 */
export class CentralAlignedClock implements Clock {
  #central: { at: number; elapsedAt: number } | null = null;

  constructor(
    /** The machine's clock (a test's clock): central's offset is measured on it, never on this one. */
    readonly machine: Clock,
    private readonly elapsed: () => number = monotonicMs,
  ) {}

  now(): number {
    if (this.#central === null) return this.machine.now();
    // Whole milliseconds, as the machine's clock answers (a sync event's created_at must be).
    return Math.round(this.#central.at + (this.elapsed() - this.#central.elapsedAt));
  }

  /** Whether it answers central's time rather than the machine's. */
  followsCentral(): boolean {
    return this.#central !== null;
  }

  /**
   * At start, before central answers: `seenMs` is a moment central's time already reached (the
   * store's last sync, dated by this clock). A machine that says it is earlier by
   * CLOCK_OFF_SECONDS or more is behind for sure: the store dates from that moment on (monotonic
   * time added) until central answers — off by the time the store was down rather than by the
   * machine's years. Returns the machine's lag in milliseconds when it resumes, else null.
   */
  resumeFrom(seenMs: number): number | null {
    const lagMs = seenMs - this.machine.now();
    if (this.#central !== null || lagMs < CLOCK_OFF_SECONDS * 1000) return null;
    this.#central = { at: seenMs, elapsedAt: this.elapsed() };
    return lagMs;
  }

  /** The machine's clock is `offsetMs` ahead of central's (negative: behind), measured just now. */
  observe(offsetMs: number): void {
    if (!clockIsOff(Math.round(offsetMs / 1000))) {
      this.#central = null;
      return;
    }
    const centralNow = this.machine.now() - offsetMs;
    if (this.#central !== null && Math.abs(centralNow - this.now()) < SAME_TIME_MS) return;
    this.#central = { at: centralNow, elapsedAt: this.elapsed() };
  }
}
