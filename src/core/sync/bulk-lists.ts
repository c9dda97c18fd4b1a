// Small list, SQL-name and value helpers shared by sync's bulk writers (central's apply, a store's snapshot, capture).

export function listIn<K, V>(map: Map<K, V[]>, key: K): V[] {
  let list = map.get(key);
  if (!list) map.set(key, (list = []));
  return list;
}

export function setIn<K, V>(map: Map<K, Set<V>>, key: K): Set<V> {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  return set;
}

export function chunks<T>(list: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}

/** Whether the row's keys are `keys`, in that order (without making a list of them per row). */
export function hasKeys(row: Readonly<Record<string, unknown>>, keys: readonly string[]): boolean {
  let i = 0;
  for (const key in row) if (key !== keys[i++]) return false;
  return i === keys.length;
}

export function quoted(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** What better-sqlite3 can bind: rows that travelled as JSON may carry booleans and JSON values (a PostgreSQL central's). */
export function sqliteValue(value: unknown): unknown {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value !== null && typeof value === 'object') return JSON.stringify(value);
  return value === undefined ? null : value;
}
