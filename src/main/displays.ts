// Which screen the kiosk window goes to. Pure: Electron's `screen.getAllDisplays()` entries fit.

export interface DisplayLike {
  id: number;
  bounds: { x: number; y: number; width: number; height: number };
}

export interface KioskDisplayChoice<D extends DisplayLike> {
  display: D;
  /** Set when the wanted screen does not exist and another was used. */
  note?: string;
}

/**
 * `wanted` is an index into `displays` (the order the OS reports). Without one, the kiosk takes the
 * first screen that is not the primary (the customer-facing one of a two-screen counter), else the
 * primary. An index past the end falls back the same way and says so. Null only when there are no screens.
 */
export function chooseKioskDisplay<D extends DisplayLike>(displays: readonly D[], primaryId: number, wanted: number | null): KioskDisplayChoice<D> | null {
  const fallback = displays.find((d) => d.id !== primaryId) ?? displays.find((d) => d.id === primaryId) ?? displays[0];
  if (!fallback) return null;
  if (wanted === null) return { display: fallback };
  const chosen = displays[wanted];
  if (chosen) return { display: chosen };
  return { display: fallback, note: `screen ${wanted} not found (${displays.length} connected); the kiosk uses screen ${displays.indexOf(fallback)}` };
}
