import type { RunningNode } from '../node/store-node';

/**
 * Keeps a node running until SIGTERM, SIGINT or SIGHUP, then closes it (requests finish, database
 * closes). SIGHUP too: a closed terminal or a `kill -HUP` from a log rotation otherwise ended the
 * node on the spot (the node logs to standard output or its own file: there is nothing to reopen).
 */
export function runUntilSignal(node: RunningNode, log: (line: string) => void): Promise<void> {
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      log(`${signal} received, shutting down`);
      for (const name of SIGNALS) process.off(name, stop);
      void node.close().then(() => {
        log('stopped');
        resolve();
      });
    };
    for (const name of SIGNALS) process.on(name, stop);
  });
}

const SIGNALS: NodeJS.Signals[] = ['SIGTERM', 'SIGINT', 'SIGHUP'];
