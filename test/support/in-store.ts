import type { Kysely } from 'kysely';
import { expect } from 'vitest';
import { addApiKey } from '../../src/core/credentials/api-keys';
import { transact } from '../../src/core/engine';
import { findBalanceMismatches, openAccount, postEntry } from '../../src/core/ledger/ledger';
import { newPublicId, nextObjectId } from '../../src/core/storage/ids';
import type { DB } from '../../src/core/storage/schema';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { http, type HttpReply, type TestNode } from './test-node';

// The in-store side over real HTTP, for the API tests of the counter (test/api/onscreen-*,
// test/api/orders-*): check-in and sessions, a second store, ledger credit, reward/rule/tier rows,
// orders and voids, and the balance check after each test. `inStoreApi` binds the calls to a
// file's node.

// ---------------------------------------------------------------------------------------------
// constants and reply parts

/** The Active status of a session or point of sale. */
export const ACTIVE = { id: 1, name: 'Active' };
/** A session hash. */
export const HASH = /^[0-9a-f]{32}$/;
/** The modules of every vendor in a check-in reply. */
export const MODULES = {
  object: 'collection',
  data: [
    { object: 'module', id: 1, name: 'Loyalty' },
    { object: 'module', id: 2, name: 'Quick Pay' },
    { object: 'module', id: 3, name: 'Rewards' },
  ],
  page_size: 3,
  count: 3,
  page: 1,
};
/** The name of the earning rule every program starts with. */
export const DEFAULT_RULE = '1 point per unit spent';

/** A currency as an order reply names it. */
export interface Cur {
  id: number;
  name: string;
  code: string | null;
}
/** The vendor's "Points" currency as an order reply names it. */
export const pointsOf = (v: { loyaltyCurrencyId: number }): Cur => ({ id: v.loyaltyCurrencyId, name: 'Points', code: null });
/** The vendor's quick-pay currency as an order reply names it. */
export const quickPayOf = (v: { quickPayCurrencyId: number }): Cur => ({ id: v.quickPayCurrencyId, name: 'Quick Pay USD', code: 'USD' });

/** An order reply's `tier`, as the database holds the member's tier now: theirs and the next one up. */
export async function tierRulesOf(db: Kysely<DB>, vendorId: number, userId: number) {
  const link = await db.selectFrom('user_vendors').select('tier_id').where('vendor_id', '=', vendorId).where('user_id', '=', userId).where('removed_at', 'is', null).executeTakeFirstOrThrow();
  const tiers = await db.selectFrom('tiers').select(['id', 'name', 'summary', 'description', 'threshold']).where('vendor_id', '=', vendorId).orderBy('threshold').execute();
  const current = tiers.find((t) => t.id === link.tier_id) ?? null;
  const next = tiers.find((t) => t.threshold > (current?.threshold ?? -1)) ?? null;
  const ref = (t: (typeof tiers)[number] | null) => t && { object: 'tier', ...t };
  return { object: 'tier_rules', current: ref(current), next: ref(next) };
}

/** `<prefix>-<n>`: a receipt number no other call of this counter gives. */
export function receiptCounter(prefix: string): () => string {
  let count = 0;
  return () => `${prefix}-${++count}`;
}

/** The ledger check of the in-store issue (for afterEach): every cached balance equals the sum of its entries. */
export async function expectBalancesAddUp(node: TestNode | undefined): Promise<void> {
  if (node) expect(await findBalanceMismatches(node.engine.db)).toEqual([]);
}

// ---------------------------------------------------------------------------------------------
// the calls, bound to a file's node

/** A second store added by `addStore`: its vendor, id and cashier key. */
export interface AddedStore {
  vendorId: number;
  storeId: number;
  apiKey: string;
}

/** The in-store calls on the node `nodeOf()` returns (read at each call). */
export function inStoreApi(nodeOf: () => TestNode) {
  const enc = encodeURIComponent;
  const node = () => nodeOf();

  const checkIn = (apiKey: string, identification: string): Promise<HttpReply> =>
    http(`${node().url}/onscreen?api_key=${enc(apiKey)}`, { method: 'POST', body: { card_number: identification } });
  const checkInOk = async (apiKey: string, identification: string): Promise<any> => {
    const reply = await checkIn(apiKey, identification);
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    return reply.body;
  };
  const close = (apiKey: string, body: unknown, headers?: Record<string, string>): Promise<HttpReply> =>
    http(`${node().url}/onscreen?api_key=${enc(apiKey)}`, { method: 'DELETE', body, ...(headers ? { headers } : {}) });
  const queueOk = async (apiKey: string, options: { expectArray?: boolean } = {}): Promise<any[]> => {
    const reply = await http(`${node().url}/onscreen/queue?api_key=${enc(apiKey)}`);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    if (options.expectArray) expect(Array.isArray(reply.body)).toBe(true);
    return reply.body;
  };
  const retrieve = (apiKey: string, hash: string): Promise<HttpReply> => http(`${node().url}/onscreen?pos_session_hash=${enc(hash)}&api_key=${enc(apiKey)}`);
  const postOrder = (apiKey: string, body: unknown): Promise<HttpReply> => http(`${node().url}/order?api_key=${enc(apiKey)}`, { method: 'POST', body });
  const deleteOrder = (apiKey: string, body: unknown): Promise<HttpReply> => http(`${node().url}/order?api_key=${enc(apiKey)}`, { method: 'DELETE', body });

  /** Inserts a store of the vendor (9 Side Street, Shelbyville): its id. */
  const insertStore = async (trx: Parameters<Parameters<typeof transact>[1]>[0], v: { vendorId: number }, name: string, now: number): Promise<number> => {
    const storeId = await nextObjectId(trx, node().engine.nodeId);
    await trx
      .insertInto('stores')
      .values({ id: storeId, vendor_id: v.vendorId, name, address1: '9 Side Street', address2: null, city: 'Shelbyville', region: null, country: 'US', postal_code: null, phone: null, created_at: now, updated_at: now })
      .execute();
    return storeId;
  };
  const insertPos = async (trx: Parameters<Parameters<typeof transact>[1]>[0], v: { vendorId: number }, storeId: number, now: number): Promise<number> => {
    const posId = await nextObjectId(trx, node().engine.nodeId);
    await trx.insertInto('points_of_sale').values({ id: posId, vendor_id: v.vendorId, store_id: storeId, name: 'Counter 1', status: 'ACTIVE', created_at: now, updated_at: now }).execute();
    return posId;
  };

  return {
    /** POST /onscreen?api_key {card_number}. */
    checkIn,
    /** `checkIn`, expecting 201: the reply body. */
    checkInOk,
    /** `checkIn`, expecting 201: the reply's pos_session. */
    checkInSessionOk: async (apiKey: string, identification: string): Promise<any> => (await checkInOk(apiKey, identification)).pos_session,
    /** DELETE /onscreen?api_key with `body`. */
    close,
    /** Closes the session with this hash, expecting 200 (and, with `expectEmpty`, the body {}). */
    closeOk: async (apiKey: string, hash: string, options: { expectEmpty?: boolean } = {}): Promise<void> => {
      const reply = await close(apiKey, { pos_session_hash: hash });
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      if (options.expectEmpty) expect(reply.body).toStrictEqual({});
    },
    /** GET /onscreen/queue?api_key, expecting 200 (and, with `expectArray`, an array): the entries. */
    queueOk,
    /** The hashes of the store's queue, in order. */
    queueHashes: async (apiKey: string, options: { expectArray?: boolean } = {}): Promise<string[]> => (await queueOk(apiKey, options)).map((e: any) => e.pos_session.hash),
    /** GET /onscreen?pos_session_hash&api_key. */
    retrieve,
    /** `retrieve`, expecting 200: the retrieve-customer reply. */
    retrieveOk: async (apiKey: string, hash: string): Promise<any> => {
      const reply = await retrieve(apiKey, hash);
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      return reply.body;
    },
    /** The pos_sessions row with this hash. */
    sessionRow: (hash: string) => node().engine.db.selectFrom('pos_sessions').selectAll().where('hash', '=', hash).executeTakeFirstOrThrow(),
    /** How many customers the node has (any status). */
    userCount: async (): Promise<number> => (await node().engine.db.selectFrom('users').select('id').execute()).length,

    /** A second store of the vendor with one cashier key labelled `name` (and, unless `pointOfSale: false`, a point of sale "Counter 1"). */
    addStore: (v: { vendorId: number }, name: string, options: { pointOfSale?: boolean } = {}): Promise<AddedStore> =>
      transact(node().engine, async (trx) => {
        const now = node().clock.now();
        const storeId = await insertStore(trx, v, name, now);
        const posId = options.pointOfSale === false ? null : await insertPos(trx, v, storeId, now);
        const key = await addApiKey(trx, node().engine, { vendorId: v.vendorId, storeId, posId, role: 'cashier', label: name });
        return { vendorId: v.vendorId, storeId, apiKey: key.key };
      }),
    /** A second store of the vendor (point of sale "Counter 1", cashier key `<name> counter`, kiosk key `<name> kiosk`): the vendor's credentials with this store's. */
    addStoreWithKiosk: (v: VendorCredentials, name: string): Promise<VendorCredentials> =>
      transact(node().engine, async (trx) => {
        const now = node().clock.now();
        const storeId = await insertStore(trx, v, name, now);
        const posId = await insertPos(trx, v, storeId, now);
        const cashier = await addApiKey(trx, node().engine, { vendorId: v.vendorId, storeId, posId, role: 'cashier', label: `${name} counter` });
        const kiosk = await addApiKey(trx, node().engine, { vendorId: v.vendorId, storeId, posId: null, role: 'kiosk', label: `${name} kiosk` });
        return { ...v, storeId, posId, apiKey: cashier.key, kioskApiKey: kiosk.key };
      }),

    /** Posts ledger entries (kind 'test') to the customer's account in a currency, as a reload or an earlier order would: one amount, or entries with expiry. */
    credit: async (v: { vendorId: number }, currencyId: number, userId: number, amount: number | Array<{ amount: number; expiresAt?: number }>): Promise<void> => {
      await transact(node().engine, async (trx) => {
        const account = await openAccount(trx, node().engine, { vendorId: v.vendorId, currencyId, holderType: 'user', holderId: userId });
        if (typeof amount === 'number') await postEntry(trx, node().engine, account, { amount, kind: 'test' });
        else for (const e of amount) await postEntry(trx, node().engine, account, { amount: e.amount, kind: 'test', expiresAt: e.expiresAt ?? null });
      });
    },
    /** The customer's cached balance in a currency (0 without an account). */
    balanceOf: async (currencyId: number, userId: number): Promise<number> => {
      const row = await node().engine.db.selectFrom('ledger_accounts').select('balance').where('currency_id', '=', currencyId).where('holder_type', '=', 'user').where('holder_id', '=', userId).executeTakeFirst();
      return row ? Number(row.balance) : 0;
    },

    /** POST /order?api_key. */
    postOrder,
    /** DELETE /order?api_key. */
    deleteOrder,
    /** `postOrder`, expecting 200 (and, with `contentType`, a JSON content type): the order reply. */
    orderOk: async (apiKey: string, body: Record<string, unknown>, options: { contentType?: boolean } = {}): Promise<any> => {
      const reply = await postOrder(apiKey, body);
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      if (options.contentType) expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
      return reply.body;
    },
    /** Voids the order with this receipt, expecting 200 (and, with `contentType`, a JSON content type): the reply. */
    voidOk: async (apiKey: string, receipt: string, options: { contentType?: boolean } = {}): Promise<any> => {
      const reply = await deleteOrder(apiKey, { receipt_number: receipt });
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      if (options.contentType) expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
      return reply.body;
    },

    /** Inserts a reward (spending rule, "<name> for points") of the vendor, ACTIVE and in Points unless told: its public id and name. */
    addReward: async (
      v: VendorCredentials,
      r: { name?: string; cost: number; status?: string; starts_at?: number | null; ends_at?: number | null; deleted_at?: number | null; currency_id?: number },
    ): Promise<{ id: string; name: string }> => {
      const publicId = newPublicId('rwd');
      const name = r.name ?? 'Free coffee';
      const now = node().clock.now();
      await node()
        .engine.db.insertInto('spending_rules')
        .values({
          id: await nextObjectId(node().engine.db, node().engine.nodeId),
          public_id: publicId,
          vendor_id: v.vendorId,
          currency_id: r.currency_id ?? v.loyaltyCurrencyId,
          name,
          summary: `${name} for points`,
          description: `Trade your points for ${name}.`,
          cost: r.cost,
          status: r.status ?? 'ACTIVE',
          starts_at: r.starts_at ?? null,
          ends_at: r.ends_at ?? null,
          created_at: now,
          updated_at: now,
          deleted_at: r.deleted_at ?? null,
        })
        .execute();
      return { id: publicId, name };
    },
    /** Inserts an earning rule of the vendor, ACTIVE and in Points unless told: its internal id. */
    addRule: async (
      v: VendorCredentials,
      rule: { name: string; points: number; per_amount: number; rounding: string; max_award?: number | null; starts_at?: number | null; ends_at?: number | null; status?: string; currency_id?: number },
    ): Promise<number> => {
      const id = await nextObjectId(node().engine.db, node().engine.nodeId);
      const now = node().clock.now();
      await node()
        .engine.db.insertInto('earning_rules')
        .values({
          id,
          public_id: newPublicId('erul'),
          vendor_id: v.vendorId,
          currency_id: rule.currency_id ?? v.loyaltyCurrencyId,
          name: rule.name,
          points: rule.points,
          per_amount: rule.per_amount,
          rounding: rule.rounding,
          max_award: rule.max_award ?? null,
          starts_at: rule.starts_at ?? null,
          ends_at: rule.ends_at ?? null,
          status: rule.status ?? 'ACTIVE',
          created_at: now,
          updated_at: now,
        })
        .execute();
      return id;
    },
    /** Inserts a tier of the vendor ("<name> summary", "All about <name>."): its id, name, summary, description and threshold. */
    addTier: async (v: VendorCredentials, tier: { name: string; threshold: number; window_days?: number | null }) => {
      const row = { id: await nextObjectId(node().engine.db, node().engine.nodeId), name: tier.name, summary: `${tier.name} summary`, description: `All about ${tier.name}.`, threshold: tier.threshold };
      const now = node().clock.now();
      await node()
        .engine.db.insertInto('tiers')
        .values({ ...row, public_id: newPublicId('tier'), vendor_id: v.vendorId, window_days: tier.window_days ?? null, created_at: now, updated_at: now })
        .execute();
      return row;
    },
    /** A second loyalty currency, made over POST /currencies: its internal id. */
    addLoyaltyCurrency: async (v: VendorCredentials, name: string): Promise<number> => {
      const reply = await http(`${node().url}/currencies`, { method: 'POST', token: v.accessToken, body: { name } });
      expect(reply.status, JSON.stringify(reply.body)).toBe(201);
      return (await node().engine.db.selectFrom('currencies').select('id').where('public_id', '=', reply.body.id).executeTakeFirstOrThrow()).id;
    },
    /** Sets a currency's status in its row. */
    setCurrencyStatus: async (currencyId: number, status: string): Promise<void> => {
      await node().engine.db.updateTable('currencies').set({ status }).where('id', '=', currencyId).execute();
    },
  };
}
