import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCard } from '../../src/core/cards/create-card';
import type { CardRecord } from '../../src/core/cards/card';
import { deleteCard } from '../../src/core/cards/delete-card';
import { listCards } from '../../src/core/cards/list-cards';
import { updateCard } from '../../src/core/cards/update-card';
import type { Engine } from '../../src/core/engine';
import { setUpVendor } from '../../src/core/tenancy/set-up-vendor';
import { BACKENDS, openEngine, testVendor } from '../support/backends';
import { ManualClock } from '../support/clock';

// The card list reads a page as one JSON value on SQLite and as rows on PostgreSQL (card-store.ts):
// on both, every filter and sort must give exactly the cards, order and fields of a plain reading.

describe.each(BACKENDS)('card list on $name', (backend) => {
  const clock = new ManualClock();
  let engine: Engine;
  let close: () => Promise<void>;
  let vendorId: number;
  let otherId: number;
  const cards: CardRecord[] = [];

  beforeAll(async () => {
    ({ engine, close } = await openEngine(backend, clock));
    vendorId = (await setUpVendor(engine, testVendor('Lists'))).vendorId;
    otherId = (await setUpVendor(engine, testVendor('Other'))).vendorId;
    const numbers = ['A1', 'a2', 'AB3', 'ab4', 'Z9', 'ZZ8', 'zz7', 'zzz6', '0001', '0002', '9999', 'B5'];
    for (const [i, number] of numbers.entries()) {
      // Pairs share a creation time: the id breaks the tie.
      if (i % 2 === 0) clock.advance(1000);
      const data = i === 0 ? { text: 'quote " backslash \\ tab \t line\u2028 é 😀', n: 1.5, nested: [null, true] } : { i };
      cards.push(await createCard(engine, { vendorId }, { number, pin: i % 3 === 0 ? `p${i}` : null, data }));
    }
    clock.advance(1000);
    await updateCard(engine, { vendorId }, cards[3]!.publicId, { status: 'INACTIVE' });
    const gone = await createCard(engine, { vendorId }, { number: 'ZZGONE' });
    await deleteCard(engine, { vendorId }, gone.publicId);
    await createCard(engine, { vendorId: otherId }, { number: 'ZZ1' });
    cards[3] = { ...cards[3]!, status: 'INACTIVE', updatedAt: clock.now() };
  });
  afterAll(async () => {
    await close?.();
  });

  const ids = (records: CardRecord[]) => records.map((card) => card.publicId);
  const sortBy = (key: (card: CardRecord) => string | number, direction: 'asc' | 'desc') => (a: CardRecord, b: CardRecord) => {
    const [x, y] = [key(a), key(b)];
    const order = x < y ? -1 : x > y ? 1 : a.id - b.id;
    return direction === 'asc' ? order : -order;
  };
  const expected = (prefix: string | null, sort: (a: CardRecord, b: CardRecord) => number) =>
    cards.filter((card) => prefix === null || card.number.toUpperCase().startsWith(prefix.toUpperCase())).sort(sort);

  it('returns whole records, as created (pin opened, data parsed)', async () => {
    const page = await listCards(engine, { vendorId }, { sort: 'date_created', order: 'ASC', limit: 100 });
    expect(page.items).toEqual([...cards].sort(sortBy((card) => card.createdAt, 'asc')));
    expect(page.hasMore).toBe(false);
  });

  it.each([
    ['z', ['Z9', 'ZZ8', 'zz7', 'zzz6']],
    ['ZZ', ['ZZ8', 'zz7', 'zzz6']],
    ['zzz6', ['zzz6']],
    ['zzzz', []],
    ['ab', ['AB3', 'ab4']],
    ['000', ['0001', '0002']],
    ['9', ['9999']],
    ['%', []],
    ['_', []],
    ['é', []],
  ])('n:%s keeps the numbers that start with it, any case', async (prefix, numbers) => {
    for (const [sort, key] of [
      ['number', (card: CardRecord) => card.number.toUpperCase()],
      ['date_created', (card: CardRecord) => card.createdAt],
      ['date_updated', (card: CardRecord) => card.updatedAt],
    ] as const) {
      for (const order of ['ASC', 'DESC'] as const) {
        const page = await listCards(engine, { vendorId }, { query: `n:${prefix}`, sort, order, limit: 100 });
        const want = expected(prefix, sortBy(key, order === 'ASC' ? 'asc' : 'desc'));
        expect(ids(page.items)).toEqual(ids(want));
        expect([...page.items.map((card) => card.number)].sort()).toEqual([...numbers].sort());
      }
    }
  });

  it('pages in order with ties on the sort column, and combines n: with s:', async () => {
    const want = expected(null, sortBy((card) => card.createdAt, 'desc'));
    const seen: CardRecord[] = [];
    for (let page = 1; ; page++) {
      const got = await listCards(engine, { vendorId }, { limit: 5, page });
      seen.push(...got.items);
      if (!got.hasMore) break;
    }
    expect(ids(seen)).toEqual(ids(want));
    const inactive = await listCards(engine, { vendorId }, { query: 'n:AB s:INACTIVE' });
    expect(inactive.items.map((card) => card.number)).toEqual(['ab4']);
  });
});
