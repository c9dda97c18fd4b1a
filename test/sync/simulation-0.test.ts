import { simulateSeedBlock } from './simulation/seed-block';

simulateSeedBlock(0);
