import { simulateSeedBlock } from './simulation/seed-block';

// The simulation's counters also sell and void while their store's sync round is under way (the
// sale commits between the round's reads and its writes, as at a real store), through the same
// faults (docs/sync.md, "Proof").
simulateSeedBlock(6, { overlap: true, seeds: 60 });
