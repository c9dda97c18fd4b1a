import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DataDir } from '../node/data-dir';

/** What a paired store remembers about its central node (DIR/central.json, owner-only: it holds the credential). */
export interface StorePairing {
  central: string;
  node_id: number;
  vendor_id: number;
  store_id: number;
  /** As central named the store when it paired (kept for messages; absent in older files). */
  store_name?: string;
  credential: string;
  paired_at: string;
}

export function pairingFile(dir: DataDir): string {
  return join(dir.root, 'central.json');
}

export function readPairing(dir: DataDir): StorePairing | null {
  const file = pairingFile(dir);
  if (!existsSync(file)) return null;
  return JSON.parse(readFileSync(file, 'utf8')) as StorePairing;
}

export function writePairing(dir: DataDir, pairing: StorePairing): void {
  const file = pairingFile(dir);
  writeFileSync(file, `${JSON.stringify(pairing, null, 2)}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
}

export function removePairing(dir: DataDir): void {
  rmSync(pairingFile(dir), { force: true });
}
