import type { SeedOptions } from './run-seed';

/** A check the simulation makes after healing, and what one case of it is: something that could have broken it. */
interface Property {
  says: string;
  /**
   * Seeds a block runs within which it must meet a case (set from the cases the blocks' first 30
   * seeds showed, 2026-12-07, so a window of that many seeds very seldom has none): a block of
   * fewer seeds is not held to it. A customer asked of central comes about once in 8 seeds; voids
   * that meet in about one seed of three since 2026-12-07 (a void at the till or at central is
   * followed, half the time, by one of the same sale at the other end: before, once in 45 seeds).
   * A void meets a spend in about one seed of four since 2026-12-07 (the voided sale's customer
   * then redeems at a node holding its points: before, once in 20 seeds); one meets a merge in
   * most seeds.
   */
  within: number;
  /** Met only in blocks of this variant. */
  variant?: keyof SeedOptions;
}

/**
 * Every property the simulation checks, counted across a block's seeds so that a change making a
 * check vacuous (nothing left that could break it) fails the block (docs/sync.md, "Proof").
 */
export const PROPERTIES = {
  acknowledged: { says: 'no event unacknowledged or rejected: pushes whose reply was lost, doubled or replayed late', within: 5 },
  salesAtCentral: { says: 'every sale a counter answered (and every order a store made) is at central: sales made while partitioned', within: 3 },
  sameEntries: { says: 'the same ledger entries on every node: entries a node holds that another node wrote', within: 1 },
  balances: { says: 'every balance equals its entries and central: non-zero balances compared', within: 1 },
  reversedOnce: { says: 'no ledger entry reversed more than once: voids that met another void of the sale', within: 20 },
  sessions: { says: "every check-in in central's state: closed check-ins compared", within: 1 },
  contacts: { says: "every customer's email and phone as central's: customers with a phone compared", within: 3 },
  voidMeetsSpend: { says: 'every balance equals its entries and central, no entry reversed twice: voids of earned points that met a spend of them at a node that had not heard of the void, leaving the customer overdrawn at central', within: 30 },
  voidMeetsMerge: { says: 'every balance equals its entries and central, no entry reversed twice: voids of a sale of a customer central merged with another, at a node that had not heard of the merge', within: 10 },
  sameRows: { says: "every node holds exactly central's rows, table by table: rows compared", within: 1 },
  compactedLog: { says: 'stores behind a compacted log converge: changes compaction removed', within: 10 },
  customerFromCentral: { says: "the joining store's counter served a customer its first sync had not brought, by asking central", within: 100 },
  emptyTableFilled: { says: "a table the joining store's first page counted empty had rows at central by the end of its snapshot", within: 30 },
  emptyTableFilledAcrossRestart: { says: 'the same, with the store restarted between its first page and its last', within: 60 },
  emptyTableFilledAfterLostFirstPage: { says: 'the same, after a first page whose reply was lost', within: 60 },
  restoresFollowed: { says: "restored stores followed central's record of their lost copy", within: 20, variant: 'restores' },
  repeatsVoided: { says: 'a sale sent to both nodes of store A: one copy voided as the repeat', within: 20, variant: 'failover' },
  salesDuringRounds: { says: "a counter's sale committed while its store's sync round was under way", within: 5, variant: 'overlap' },
} satisfies Record<string, Property>;

export type PropertyName = keyof typeof PROPERTIES;
export type Cases = Record<PropertyName, number>;

export function noCases(): Cases {
  return Object.fromEntries(Object.keys(PROPERTIES).map((name) => [name, 0])) as Cases;
}

export function addCases(total: Cases, more: Cases): void {
  for (const name of Object.keys(PROPERTIES) as PropertyName[]) total[name] += more[name];
}

/** The block's cases by property, one line each (printed with every run). */
export function casesReport(block: string, seeds: number, cases: Cases): string {
  const width = Math.max(...Object.keys(PROPERTIES).map((name) => name.length));
  const lines = (Object.keys(PROPERTIES) as PropertyName[]).map((name) => `  ${name.padEnd(width)} ${String(cases[name]).padStart(7)}  ${PROPERTIES[name].says}`);
  return `${block}: cases per property over ${seeds} seeds\n${lines.join('\n')}`;
}

/** Properties this block's seeds must have met and did not: the block's variant's and the common ones, once it ran enough seeds. */
export function vacuousProperties(options: SeedOptions, seeds: number, cases: Cases): PropertyName[] {
  return (Object.keys(PROPERTIES) as PropertyName[]).filter((name) => {
    const property: Property = PROPERTIES[name];
    const meant = (property.variant === undefined || options[property.variant] === true) && seeds >= property.within;
    return meant && cases[name] === 0;
  });
}
