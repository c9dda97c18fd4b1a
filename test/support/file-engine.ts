import { randomBytes } from 'node:crypto';
import BetterSqlite3 from 'better-sqlite3';
import { type Engine, startEngine } from '../../src/core/engine';
import { openSqlite } from '../../src/core/storage/database';
import { makeTempDir } from './temp-dir';

/**
 * A store engine on a real SQLite file in a new folder, and a second connection to the same file
 * standing for another process (what it sees is only what was committed).
 */
export async function engineOnFile(prefix: string, other: { readonly?: boolean } = {}): Promise<{ engine: Engine; file: string; other: BetterSqlite3.Database; close(): Promise<void> }> {
  const dir = makeTempDir(prefix);
  const file = `${dir.path}/node.db`;
  const engine = await startEngine({ database: openSqlite(file), nodeKey: randomBytes(32), role: 'store' });
  const connection = new BetterSqlite3(file, { readonly: other.readonly ?? false });
  return {
    engine,
    file,
    other: connection,
    close: async () => {
      connection.close();
      await engine.close();
      dir.remove();
    },
  };
}
