import { describe, expect, it } from 'vitest';
import { runSeed } from './simulation/run-seed';

// Deterministic simulation of a chain over a lossy network (docs/sync.md, "Proof"). CI runs a fixed
// block of seeds per file; SYNC_SIM_SEEDS raises the count, SYNC_SIM_SEED replays one seed.
const FILE_BLOCK = 1;
const PER_FILE = Number(process.env.SYNC_SIM_SEEDS ?? 125);

describe(`sync simulation, seeds block ${FILE_BLOCK}`, () => {
  it('every node converges after healing, whatever the network did', async () => {
    const only = process.env.SYNC_SIM_SEED;
    const seeds = only !== undefined ? [Number(only)] : Array.from({ length: PER_FILE }, (_, i) => FILE_BLOCK * 1_000_000 + i);
    let orders = 0;
    for (const seed of seeds) {
      const outcome = await runSeed(seed);
      orders += outcome.stats.orders;
      if (outcome.problems.length > 0) {
        throw new Error(`seed ${seed} failed; replay with: SYNC_SIM_SEED=${seed} npx vitest run test/sync/simulation-${FILE_BLOCK}.test.ts\n${outcome.problems.slice(0, 10).join('\n')}`);
      }
    }
    expect(orders).toBeGreaterThan(0);
  }, 600_000);
});
