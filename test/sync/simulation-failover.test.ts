import { simulateSeedBlock } from './simulation/seed-block';

// The simulation's store A has two nodes, and its till at times sends one sale to both (a failover
// after a lost reply), through the same faults: central voids one copy (docs/sync.md, Conflicts).
// Seed 5001331 of the 2026-12-06 soak is now a scripted case (simulation-scripted.test.ts).
simulateSeedBlock(5, { failover: true, seeds: 100 });
