/**
 * A map kept per database — keyed by an object that lives as long as it (an engine's handle, or the
 * dialect adapter every transaction of it shares) — made on first use and dropped with it: caches
 * of rows, columns or statements that must never mix two databases.
 */
export function mapPerDatabase<K, V>(): (owner: object) => Map<K, V> {
  const maps = new WeakMap<object, Map<K, V>>();
  return (owner) => {
    let map = maps.get(owner);
    if (!map) maps.set(owner, (map = new Map()));
    return map;
  };
}
