import { simulateSeedBlock } from './simulation/seed-block';

// The simulation's stores also back up their folders and are restored from those backups at
// random moments, through the same faults (docs/sync.md, "A store restored from a backup").
simulateSeedBlock(4, { restores: true, seeds: 60 });
