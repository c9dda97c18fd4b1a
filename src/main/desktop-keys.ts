import { replaceApiKey } from '../core/credentials/replace-api-key';
import type { Engine } from '../core/engine';
import { findCounterStore } from '../core/stores/find-counter-store';

/** Labels of the keys the desktop app mints for its windows; each start replaces the previous pair. */
export const DESKTOP_KEY_LABELS = { cashier: 'Desktop cashier', kiosk: 'Desktop kiosk' } as const;

export interface DesktopKeys {
  vendorId: number;
  storeId: number;
  storeName: string;
  /** For the cashier window: may place orders and close sessions. */
  cashier: string;
  /** For the kiosk window: may check in and register, never close sessions (the node enforces it). */
  kiosk: string;
}

/**
 * A cashier-role and a kiosk-role API key for the terminal's store, minted at every start: stored
 * hashed like every key, the previous desktop keys of that store revoked in the same step so they
 * never pile up and a copy taken from an old run stops working. Null when the node has no store.
 */
export async function mintDesktopKeys(engine: Engine, storeId: number | null): Promise<DesktopKeys | null> {
  const store = await findCounterStore(engine, storeId ?? undefined);
  if (!store) return null;
  const base = { vendorId: store.vendorId, storeId: store.storeId };
  const cashier = await replaceApiKey(engine, { ...base, posId: store.posId, role: 'cashier', label: DESKTOP_KEY_LABELS.cashier });
  const kiosk = await replaceApiKey(engine, { ...base, posId: null, role: 'kiosk', label: DESKTOP_KEY_LABELS.kiosk });
  return { ...base, storeName: store.storeName, cashier: cashier.key, kiosk: kiosk.key };
}
