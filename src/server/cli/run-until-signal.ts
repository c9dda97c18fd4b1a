import type { RunningNode } from '../node/store-node';

/** Keeps a node running until SIGTERM or SIGINT, then closes it (requests finish, database closes). */
export function runUntilSignal(node: RunningNode, log: (line: string) => void): Promise<void> {
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      log(`${signal} received, shutting down`);
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
      void node.close().then(() => {
        log('stopped');
        resolve();
      });
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  });
}
