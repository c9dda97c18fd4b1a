import { afterEach, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/core/engine';
import { countHit, sweepRateWindows } from '../../src/core/limits/count-hit';
import { BACKENDS, openEngine } from '../support/backends';
import { ManualClock } from '../support/clock';

// Rate-limit windows in the database (issue 17, item 10) behave the same on SQLite and PostgreSQL:
// hits count up within a window, a passed window restarts at 1, concurrent hits are never lost,
// and a sweep removes only windows that have passed.

describe.each(BACKENDS)('rate-limit windows on $name', (backend) => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    close = undefined;
  });

  async function engineAt(clock: ManualClock): Promise<Engine> {
    const opened = await openEngine(backend, clock);
    close = opened.close;
    return opened.engine;
  }

  it('counts within a window, restarts after it, loses no concurrent hit; a sweep deletes passed windows only', async () => {
    const clock = new ManualClock();
    const engine = await engineAt(clock);
    const start = clock.now();
    expect(await countHit(engine, 'login:ip:1', 60_000)).toEqual({ hits: 1, windowStart: start });
    clock.advance(30_000);
    expect(await countHit(engine, 'login:ip:1', 60_000)).toEqual({ hits: 2, windowStart: start });
    expect((await countHit(engine, 'login:ip:2', 60_000)).hits).toBe(1);
    clock.advance(30_000);
    expect(await countHit(engine, 'login:ip:1', 60_000)).toEqual({ hits: 1, windowStart: clock.now() });
    const together = await Promise.all(Array.from({ length: 20 }, () => countHit(engine, 'burst', 60_000)));
    expect(together.map((w) => w.hits).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));

    // A sweep deletes passed windows only.
    await engine.db.deleteFrom('rate_limit_windows').execute();
    await countHit(engine, 'short', 1_000);
    await countHit(engine, 'long', 60_000);
    clock.advance(1_000);
    await sweepRateWindows(engine);
    expect(await engine.db.selectFrom('rate_limit_windows').select('expires_at').execute()).toHaveLength(1);
    expect((await countHit(engine, 'long', 60_000)).hits).toBe(2);
  });
});
