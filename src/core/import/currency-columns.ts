import { columnKey, currencyColumnOf, type MemberRecord } from './member-file';

// A program with several loyalty currencies round-trips through the members export: beside
// `points` (one currency: the program's only one, or the one named for it) the export writes
// `points:<name>` and `points_expire_on:<name>` for each loyalty currency, `<name> (<public id>)`
// when two names read alike. The import reads each into the program's active loyalty currency of
// that name or public id (the whole name first: a name may end in parentheses itself). `points`
// wins: the columns of its own currency are not read when the file has a `points` column (the
// export writes that currency's balance in both). A column naming no active loyalty currency here
// (an archived one, another program's) is not read, and said so.

export interface LoyaltyCurrency {
  id: number;
  public_id: string;
  name: string;
}

/** One currency's columns in the file (their columnKey'd headers; null when the file has none). */
export interface CurrencyColumns {
  currency: { id: number; name: string };
  points: string | null;
  expireOn: string | null;
}

/** The per-currency headers of a file's records (every record has every column the header named). */
export function currencyHeaders(records: readonly MemberRecord[]): string[] {
  return Object.keys(records[0]?.byCurrency ?? {});
}

/**
 * Which currency each per-currency header is, and the headers not read (an unknown currency, one
 * two active currencies answer to, the `points` column's own).
 */
export function readCurrencyColumns(headers: readonly string[], loyalty: readonly LoyaltyCurrency[], pointsColumnCurrencyId: number | null): { columns: CurrencyColumns[]; notRead: string[] } {
  const found = headers.map((header) => ({ header, column: currencyColumnOf(header)!, currency: currencyNamed(currencyColumnOf(header)!.label, loyalty) }));
  // Two columns of one kind landing on one currency (two of the old program's read alike here): neither is read.
  const twice = (f: (typeof found)[number]) => found.some((g) => g !== f && g.currency === f.currency && g.column.kind === f.column.kind);
  const byId = new Map<number, CurrencyColumns>();
  const notRead: string[] = [];
  for (const f of found) {
    const { currency } = f;
    if (!currency || currency.id === pointsColumnCurrencyId || twice(f)) {
      notRead.push(f.header);
      continue;
    }
    const columns = byId.get(currency.id) ?? { currency: { id: currency.id, name: currency.name }, points: null, expireOn: null };
    if (f.column.kind === 'points') columns.points = f.header;
    else columns.expireOn = f.header;
    byId.set(currency.id, columns);
  }
  // In the program's order of its currencies, as the export writes them.
  return { columns: loyalty.flatMap((c) => byId.get(c.id) ?? []), notRead };
}

/**
 * The one active loyalty currency a column's label names (columnKey'd): its whole name first ("Club
 * (VIP)" is that currency, never "Club"), else a public id, else the export's `<name> (<public id>)`:
 * this program's currency of that id, or (another program's id) the one of that name. Only a public
 * id's parentheses are split off: "Club (VIP)" in a program without it names nothing, not "Club".
 */
function currencyNamed(label: string, loyalty: readonly LoyaltyCurrency[]): LoyaltyCurrency | undefined {
  const named = (key: string) => {
    const found = loyalty.filter((c) => columnKey(c.name) === key);
    return found.length > 0 ? { one: found.length === 1 ? found[0] : undefined } : null;
  };
  const whole = named(label);
  if (whole) return whole.one;
  const withId = /^(.*)_\((curr_[0-9a-z]+)\)$/.exec(label);
  const byId = loyalty.find((c) => c.public_id.toLowerCase() === (withId ? withId[2]! : label));
  if (byId !== undefined || withId === null) return byId;
  return named(withId[1]!)?.one;
}
