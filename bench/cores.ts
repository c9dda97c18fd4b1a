// How bench processes use the cores: servers on core 0, the load generator on core 1, when taskset
// exists and there are two cores. A child inherits its parent's pin unless given cores of its own.
import { spawnSync } from 'node:child_process';
import { cpus } from 'node:os';

export const canPin = cpus().length >= 2 && spawnSync('taskset', ['-V']).status === 0;

/** The command prefix that runs a child on every core (nothing when pinning is not possible). */
export const onEveryCore: string[] = canPin ? ['taskset', '-c', `0-${cpus().length - 1}`] : [];
