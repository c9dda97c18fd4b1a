import { simulateSeedBlock } from './simulation/seed-block';

// The simulation's store A has two nodes, and its till at times sends one sale to both (a failover
// after a lost reply), through the same faults: central voids one copy (docs/sync.md, Conflicts).
// 5001331: a till voided its node's copy after central took that copy as the repeat (2026-12-06 soak).
simulateSeedBlock(5, { failover: true, seeds: 100, regressions: [5_001_331] });
