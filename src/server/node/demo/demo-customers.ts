import { createCard } from '../../../core/cards/create-card';
import type { StoreScope } from '../../../core/credentials/authenticate';
import { cleanPhone, emailKey } from '../../../core/customers/contact';
import { insertUser, linkUserToVendor } from '../../../core/customers/customer-store';
import { type Engine, transact } from '../../../core/engine';
import { checkIn } from '../../../core/onscreen/check-in';
import { placeOrder } from '../../../core/orders/place-order';
import { updateReloadSettings } from '../../../core/payments/auto-reload/reload-settings';
import { addBillingProfile } from '../../../core/payments/billing-profiles/manage-billing-profiles';
import { reloadQuickPay } from '../../../core/payments/reloads/reload-quick-pay';
import { nextObjectId } from '../../../core/storage/ids';
import type { DemoProgram } from './demo-program';
import { DEMO_PEOPLE, type DemoPerson } from './demo-people';

const DAY = 24 * 3600_000;

const MENU = [
  { name: 'Latte', price: 4.5, sku: 'LAT' },
  { name: 'Espresso', price: 3, sku: 'ESP' },
  { name: 'Cappuccino', price: 4.25, sku: 'CAP' },
  { name: 'Cold brew', price: 4.75, sku: 'CBR' },
  { name: 'Croissant', price: 3.25, sku: 'CRO' },
  { name: 'Blueberry muffin', price: 3.5, sku: 'MUF' },
  { name: 'Avocado toast', price: 8.5, sku: 'AVO' },
  { name: 'House beans 340 g', price: 16, sku: 'BEA' },
] as const;

/** Test-gateway cards that always succeed (test-gateway.ts); never a real card. */
const TEST_CARDS = [
  { number: '4242424242424242', cvv: '123' },
  { number: '5555555555554444', cvv: '123' },
  { number: '378282246310005', cvv: '1234' },
];

/** Visits over the demo's history and how far back they start, by habit. */
const HABITS: Record<DemoPerson['habit'], { visits: number; firstDay: number; lastDay: number }> = {
  regular: { visits: 24, firstDay: 42, lastDay: 1 },
  weekly: { visits: 7, firstDay: 42, lastDay: 3 },
  occasional: { visits: 3, firstDay: 35, lastDay: 6 },
  // Last seen almost three months ago: their points expire within days (the "expiring" line).
  lapsed: { visits: 4, firstDay: 88, lastDay: 80 },
  new: { visits: 1, firstDay: 2, lastDay: 2 },
};

/** A small seeded generator (mulberry32): the same demo at every first run. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The engine as it was at `at`: what the demo's history writes carries that time. */
function engineAt(engine: Engine, at: number): Engine {
  return { ...engine, clock: { now: () => at } };
}

/**
 * The fifty demo customers: account (no password: they can claim it by registering with the same
 * email), loyalty card, membership; saved test cards, a first quick-pay load and auto reload for
 * the regulars; then their visits at both stores over the last weeks (orders that earn points,
 * some paid with quick pay, some redeeming a reward), through the same use cases a counter uses.
 */
export async function seedDemoCustomers(engine: Engine, vendorId: number, program: DemoProgram): Promise<void> {
  const now = engine.clock.now();
  const counters: StoreScope[] = program.stores.map((s, i) => ({
    vendorId,
    storeId: s.storeId,
    posId: s.posId,
    apiKeyId: 0,
    role: 'cashier',
    errorMode: 'http',
    workstationIdentifier: `demo-${i + 1}`,
  }));
  let receipt = 1000;
  for (const [index, person] of DEMO_PEOPLE.entries()) {
    const random = seededRandom(index + 1);
    const habit = HABITS[person.habit];
    const joinedAt = now - (habit.firstDay + 1) * DAY;
    const userId = await addPerson(engineAt(engine, joinedAt), vendorId, person);
    const owner = { sessionId: 0, vendorId, userId };

    const saved = person.habit === 'regular' || person.habit === 'weekly' || (person.habit === 'occasional' && index % 2 === 0);
    let profileId: number | null = null;
    if (saved) {
      const card = TEST_CARDS[index % TEST_CARDS.length]!;
      const profile = await addBillingProfile(engineAt(engine, joinedAt), owner, {
        number: card.number,
        cvv: card.cvv,
        expiryMonth: String(1 + (index % 12)).padStart(2, '0'),
        expiryYear: String(new Date(now).getUTCFullYear() + 2),
        name: `${person.firstName} ${person.lastName}`,
        zipCode: '94105',
      });
      profileId = profile.id;
      await reloadQuickPay(engineAt(engine, joinedAt + 60_000), owner, { profileId, amount: [25, 50, 20][index % 3]!, idempotencyKey: `demo-first-load-${index}` });
    }

    let quickPay = saved ? [25, 50, 20][index % 3]! * 100 : 0;
    let points = 0;
    for (let visit = 0; visit < habit.visits; visit += 1) {
      const span = habit.firstDay - habit.lastDay;
      const day = habit.visits === 1 ? habit.firstDay : habit.firstDay - Math.round((span * visit) / (habit.visits - 1));
      const at = now - day * DAY + (8 + Math.floor(random() * 9)) * 3600_000;
      const items = pickItems(random, index);
      const subtotalCents = items.reduce((sum, item) => sum + Math.round(item.price * 100) * item.quantity, 0);
      const payWithQuickPay = quickPay >= subtotalCents && random() < 0.6;
      const reward = rewardFor(points, random, program);
      // A visit: checked in at the counter, then the order (which closes the session).
      const counter = counters[visit % 3 === 2 ? 1 : 0]!;
      const { session } = await checkIn(engineAt(engine, at - 120_000), counter, { identification: person.card });
      const result = await placeOrder(engineAt(engine, at), counter, {
        sessionHash: session.hash,
        receiptNumber: `D${receipt++}`,
        subtotal: subtotalCents / 100,
        items,
        paymentMethod: payWithQuickPay ? 'quick_pay' : random() < 0.5 ? 'card' : 'cash',
        date: Math.floor(at / 1000),
        ...(payWithQuickPay ? { quickPay: subtotalCents / 100 } : {}),
        ...(reward ? { redemptions: [reward] } : {}),
      });
      quickPay = result.balances.quickPay.amount;
      points += result.pointsEarned - result.pointsSpent;
      // Regulars top up when quick pay runs low, as their auto reload does from now on.
      if (profileId !== null && person.habit === 'regular' && quickPay < 1000) {
        quickPay = (await reloadQuickPay(engineAt(engine, at + 60_000), owner, { profileId, amount: 25, idempotencyKey: `demo-top-up-${index}-${visit}` })).balance;
      }
    }

    // Auto reload on the regulars: $25 whenever quick pay falls under $10.
    if (profileId !== null && person.habit === 'regular') {
      await updateReloadSettings(engineAt(engine, now - DAY), owner, { amount: 25, threshold: 10, profileId });
    }
  }
}

async function addPerson(engine: Engine, vendorId: number, person: DemoPerson): Promise<number> {
  const { id: cardId } = await createCard(engine, { vendorId }, { number: person.card, data: { program: 'Demo Coffee loyalty card' } });
  return transact(engine, async (trx) => {
    const user = await insertUser(trx, engine, {
      email: person.email,
      email_key: emailKey(person.email),
      password_hash: null,
      first_name: person.firstName,
      last_name: person.lastName,
      phone: cleanPhone(person.phone, { country: 'US' }),
      cedula: null,
      birthdate: null,
      first_vendor_id: vendorId,
    });
    await linkUserToVendor(trx, engine, { userId: user.id, vendorId, contactConsent: 1 });
    const now = engine.clock.now();
    await trx
      .insertInto('user_cards')
      .values({ id: await nextObjectId(trx, engine.nodeId), user_id: user.id, vendor_id: vendorId, card_id: cardId, status: 'ACTIVE', created_at: now, updated_at: now, removed_at: null })
      .execute();
    return user.id;
  });
}

/** One to three lines; each customer has a usual drink (their favourite) that comes up most. */
function pickItems(random: () => number, index: number): Array<{ name: string; quantity: number; price: number; sku: string }> {
  const usual = MENU[index % 4]!;
  const lines = [{ ...usual, quantity: random() < 0.25 ? 2 : 1 }];
  if (random() < 0.6) {
    const extra = MENU[4 + Math.floor(random() * 4)]!;
    lines.push({ ...extra, quantity: 1 });
  }
  return lines;
}

/** Now and then a customer with enough points redeems the dearest reward they can afford under 150. */
function rewardFor(points: number, random: () => number, program: DemoProgram): string | null {
  if (random() > 0.2) return null;
  if (points >= 120) return program.rewards['Free latte'] ?? null;
  if (points >= 80) return program.rewards['Pastry of the day'] ?? null;
  if (points >= 50) return program.rewards['Free espresso'] ?? null;
  return null;
}
