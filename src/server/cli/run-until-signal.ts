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
      // Holds the process until the close ends: a step of it waiting on a timer or a socket that
      // does not keep Node's loop alive let the process exit mid-close, with code 0 and no 'stopped'.
      const keepAlive = setInterval(() => undefined, 1_000);
      void node
        .close()
        .then(() => {
          log('stopped');
          resolve();
        })
        .finally(() => clearInterval(keepAlive));
    };
    for (const name of SIGNALS) process.on(name, stop);
  });
}

const SIGNALS: NodeJS.Signals[] = ['SIGTERM', 'SIGINT', 'SIGHUP'];
