import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { isServiceError } from '../../../src/shared/errors';
import { authenticateApiKey } from '../../../src/core/credentials/authenticate';
import { findBalanceMismatches } from '../../../src/core/ledger/ledger';
import { closeSession } from '../../../src/core/onscreen/close-session';
import { registerInStore } from '../../../src/core/onscreen/register-in-store';
import { placeOrder } from '../../../src/core/orders/place-order';
import { voidOrder } from '../../../src/core/orders/void-order';
import { createSpendingRule } from '../../../src/core/rules/spending/create-spending-rule';
import { createCard } from '../../../src/core/cards/create-card';
import { openSqlite } from '../../../src/core/storage/database';
import { nodeOfId } from '../../../src/core/storage/ids';
import { compactChangeLog } from '../../../src/core/sync/central/compact-change-log';
import { countSnapshot } from '../../../src/core/sync/central/count-snapshot';
import { getMeta } from '../../../src/core/storage/node-meta';
import { summariseOutbox } from '../../../src/core/sync/outbox/pending-events';
import type { Engine } from '../../../src/core/engine';
import { ManualClock } from '../../support/clock';
import { addStore, pairStore, startCentral, startStoreNode, type StoreHandle } from '../support/chain';
import { replicatedState } from '../support/snapshot-tables';
import { LossyLink } from './network';
import { type Cases, noCases } from './properties';
import { Random } from './random';
import { VoidMeetings } from './void-meetings';

export interface SeedOutcome {
  seed: number;
  problems: string[];
  /** What could have broken each property in this run (properties.ts). */
  cases: Cases;
}

export interface SeedOptions {
  /**
   * Stores' folders are also backed up and restored at random moments (docs/sync.md, "A store
   * restored from a backup"). Off, a seed replays exactly as before the option existed.
   */
  restores?: boolean;
  /**
   * Store A has a second node, and at random moments a till sends a sale to one of A's nodes and
   * then the same sale to the other (a failover after a lost reply): central must void one copy
   * (docs/sync.md, Conflicts: `sale_repeated`). Off, a seed replays as before the option existed.
   */
  failover?: boolean;
  /**
   * Some sync rounds run while the counter sells (or voids) at the same store: the sale commits
   * between the round's reads and writes, as a real store's does between its loop's awaits. Off,
   * a seed replays as before the option existed.
   */
  overlap?: boolean;
}

export type SimStore = StoreHandle & { link: LossyLink; nodeId: number; name: string; key: { storeId: number; apiKey: string }; backups?: Buffer[]; snapshotPage?: number };

const STEPS = Number(process.env.SYNC_SIM_STEPS ?? 60);
/** Customers central has when the fourth store joins, in odd seeds (from a quarter of the way in). */
const JOINER_FINDS_MEMBERS = 3;
/** SYNC_SIM_TRACE=1 prints each step (with SYNC_SIM_SEED, to read how a failing seed got there). */
const trace = process.env.SYNC_SIM_TRACE === '1' ? (line: string) => void process.stderr.write(`${line}\n`) : () => undefined;
const HOUR = 3_600_000;
/** The backups of each store's folder kept at once (restores pick one). */
const MAX_BACKUPS = 3;

/**
 * One seeded run: central and three stores sell (and void, at the till and at central) through a
 * lossy, partitioned link while the clock moves, and a fourth joins a third of the way in (first
 * sync under the same faults, its counter asking central for customers not received yet); then
 * the network heals and every node must converge (docs/sync.md, "Proof").
 */
export async function runSeed(seed: number, options: SeedOptions = {}): Promise<SeedOutcome> {
  const random = new Random(seed);
  const clock = new ManualClock(Date.UTC(2026, 10, 1, 8) + seed * 1000);
  const central = await startCentral(clock);
  const problems: string[] = [];
  const stores: SimStore[] = [];
  const cases = noCases();
  // Every sale a counter answered, by receipt; those a restore took away before they were sent may be missing.
  const sold: string[] = [];
  const answered = (store: SimStore, receiptNumber: string) => {
    sold.push(receiptNumber);
    if (store.link.partitioned) cases.salesAtCentral += 1;
  };
  // Receipts a till sent to both nodes of store A, each answered by both.
  const sentTwice: string[] = [];
  const mayBeLost = new Set<string>();
  const backupDir = mkdtempSync(join(tmpdir(), 'pc-sim-backup-'));
  try {
    const points = await central.engine.db.selectFrom('currencies').select('public_id').where('id', '=', central.vendor.loyaltyCurrencyId).executeTakeFirstOrThrow();
    // What nodes knew at each void and spend, to count the voids that met a spend or a merge.
    const meetings = new VoidMeetings(central.vendor.loyaltyCurrencyId);
    const reward = await createSpendingRule(central.engine, { vendorId: central.vendor.vendorId }, { name: 'Coffee', cost: 8, currency: points.public_id });
    const storeKeys = [{ storeId: central.vendor.storeId, apiKey: central.vendor.apiKey }, await addStore(central, 'B'), await addStore(central, 'C')];
    for (const [i, key] of storeKeys.entries()) {
      let link: LossyLink | undefined;
      const handle = await pairStore(central, clock, key, (credential) => {
        link = new LossyLink(central.transportFor(credential), random, { drop: 0, loseReply: 0, duplicate: 0, replayOld: 0 });
        return link;
      });
      link!.faults = { drop: 0.1, loseReply: 0.1, duplicate: 0.05, replayOld: 0.05 };
      stores.push({ ...handle, link: link!, nodeId: handle.engine.nodeId, name: `store ${'ABC'[i]}`, key });
    }
    if (options.failover === true) {
      let link: LossyLink | undefined;
      const key = storeKeys[0]!;
      const handle = await pairStore(central, clock, key, (credential) => (link = new LossyLink(central.transportFor(credential), random, { drop: 0, loseReply: 0, duplicate: 0, replayOld: 0 })));
      link!.faults = { drop: 0.1, loseReply: 0.1, duplicate: 0.05, replayOld: 0.05 };
      stores.push({ ...handle, link: link!, nodeId: handle.engine.nodeId, name: 'store A (second node)', key });
    }
    const emails = Array.from({ length: 8 }, (_, i) => `c${i}@sim.test`);
    // Fewer phones than emails: counters add them to customers who have none, and meet over them.
    const phones = Array.from({ length: 4 }, (_, i) => `+1202555017${i}`);
    let receipt = 0;
    let joined = false;
    // The joining store's first sync, looked at between steps: was it restarted part-way, and
    // which tables its first page counted empty hold rows at central once it is done.
    let joiner: SimStore | undefined;
    const firstSync = { restartedPartWay: false, done: false };
    const watchFirstSync = async () => {
      if (!joiner || firstSync.done) return;
      const position = await snapshotPosition(joiner.engine);
      if (!position?.done) return;
      firstSync.done = true;
      const counts = await countSnapshot(central.engine.db, central.vendor.vendorId);
      const filled = (position.empty ?? []).filter((table) => (counts[table] ?? 0) > 0).length;
      cases.emptyTableFilled += filled;
      if (firstSync.restartedPartWay) cases.emptyTableFilledAcrossRestart += filled;
      if (joiner.link.firstPagesLost > 0) cases.emptyTableFilledAfterLostFirstPage += filled;
    };
    // A restart (or a restore) of the joining store between its first page and its last.
    const restarting = async (store: SimStore) => {
      if (store === joiner && (await snapshotPosition(store.engine))?.done === false) firstSync.restartedPartWay = true;
    };
    // The store process restarts: all it held in memory is lost (the engine's too: whether
    // central answered, its caches), its database stays as committed.
    const restart = async (store: SimStore) => {
      const committed = await backupOf(store.engine, backupDir);
      await restarting(store);
      await store.close();
      const restarted = await startStoreNode(clock, openSqlite(committed), { ...store.key, vendorId: central.vendor.vendorId, credential: store.credential }, store.link, undefined, store.snapshotPage);
      Object.assign(store, { engine: restarted.engine, client: restarted.client, scope: restarted.scope, close: restarted.close });
    };
    // Central writes while the joining store's snapshot is part-way: a new card (a table its first
    // page counted empty: docs/sync.md, "Tables empty at the cursor"), or a new customer who buys
    // (customers, memberships, entries, check-ins, orders: tables counted empty too when the store
    // joined before any customer, else a customer its snapshot may have passed). All must reach the
    // store by the log.
    let centralWrites = 0;
    const centralWritesMeanwhile = async (empty: string[], at: string) => {
      const scope = await authenticateApiKey(central.engine, storeKeys[0]!.apiKey);
      centralWrites += 1;
      if (empty.includes('cards') && random.chance(0.5)) {
        trace(`${at}: central issues card SIMC${centralWrites}`);
        await createCard(central.engine, scope, { number: `SIMC${centralWrites}` });
        return;
      }
      const email = `central${centralWrites}@sim.test`;
      trace(`${at}: central registers ${email} and sells to them`);
      await registerInStore(central.engine, scope, { email });
      await placeOrder(central.engine, scope, { identification: email, receiptNumber: `central-${centralWrites}`, subtotal: 5 + random.int(40) });
    };
    // Until the joining store's snapshot is done, its sync loop runs a round at half the steps (a
    // step is minutes; a real loop runs rounds every few seconds). While the snapshot is part-way,
    // central writes to a table it counted empty, a customer of the chain it has not received walks
    // in (the counter asks central: refused before the snapshot reaches customers, or once it is
    // past the ledger), and its process restarts.
    const firstSyncUnderWay = async (store: SimStore, at: string) => {
      if (random.chance(0.5)) {
        trace(`${at}: first-sync round`);
        await store.client.syncOnce();
      }
      const partWay = await snapshotPosition(store.engine);
      if (partWay?.done !== false) return;
      if (random.chance(0.3)) await centralWritesMeanwhile(partWay.empty ?? [], at);
      const here = new Set(await customerEmailsAt(store.engine));
      const notHere = (await customerEmailsAt(central.engine)).filter((email) => !here.has(email));
      if (notHere.length > 0 && random.chance(0.3)) {
        const email = random.pick(notHere);
        const receiptNumber = `${store.name}-${(receipt += 1)}`;
        trace(`${at}: a customer of the chain walks in, ${email}, sells ${receiptNumber}`);
        await placeOrder(store.engine, await store.scope(), { identification: email, receiptNumber, subtotal: 5 + random.int(40) });
        answered(store, receiptNumber);
      }
      if (random.chance(0.1)) {
        trace(`${at}: process restarts part-way through its snapshot`);
        await restart(store);
      }
    };
    // A customer whose sale was just voided cashes in the points another node shows them (it holds
    // the sale and not the void yet): rewards until it says not enough points (a refusal, or a
    // customer that node does not know, is a step like any other).
    const spendElsewhere = async (storeId: number, voided: string, at: string) => {
      const holders = [];
      for (const node of stores) if (await standsAt(node.engine, storeId, voided)) holders.push(node);
      if (holders.length === 0) return;
      const other = random.pick(holders);
      const sale = await other.engine.db.selectFrom('orders').select('user_id').where('store_id', '=', storeId).where('receipt_number', '=', voided).executeTakeFirstOrThrow();
      const email = sale.user_id ? await emailAt(other.engine, Number(sale.user_id)) : null;
      for (let redeemed = 0; email && redeemed < 4; redeemed += 1) {
        const receiptNumber = `${other.name}-${(receipt += 1)}`;
        trace(`${at}: ${email} redeems points at ${other.name}, ${receiptNumber}, before it hears of the void of ${voided}`);
        try {
          await placeOrder(other.engine, await other.scope(), { identification: email, receiptNumber, subtotal: 3, redemptions: [reward.publicId] });
        } catch (error) {
          if (!isServiceError(error)) throw error;
          trace(`${at}: ${other.name}: ${error.message}`);
          return;
        }
        answered(other, receiptNumber);
        await meetings.spent(other.engine, other.storeId, receiptNumber);
      }
    };
    for (let step = 0; step < STEPS; step += 1) {
      await watchFirstSync();
      if (!joined && step >= Math.floor(STEPS / 4) && (seed % 2 === 0 || (await membersAt(central.engine)) >= JOINER_FINDS_MEMBERS)) {
        joined = true;
        // A fourth store joins mid-run over a lossy link (faults half as often, or its first sync
        // would seldom reach the customers in a run), in pages of 2 rows (a real first sync's
        // 10,000-row pages over a chain's customers are as many requests or more). Even seeds: a quarter of the way in, whatever central has (often
        // no customers yet: the first page counts their tables empty, and they fill while the
        // snapshot goes on). Odd seeds: once central has customers, so the snapshot has some to
        // stop among and the counter serves those it has not received yet by asking central.
        let link: LossyLink | undefined;
        const key = await addStore(central, 'D');
        const handle = await pairStore(
          central,
          clock,
          key,
          (credential) => (link = new LossyLink(central.transportFor(credential), random, { drop: 0.05, loseReply: 0.05, duplicate: 0.05, replayOld: 0.05, loseFirstPage: 0.3 })),
          undefined,
          { firstSync: false, snapshotPage: 2 },
        );
        joiner = { ...handle, link: link!, nodeId: handle.engine.nodeId, name: 'store D (joined mid-run)', key, snapshotPage: 2 };
        stores.push(joiner);
      }
      if (joiner && !firstSync.done) {
        const at = `step ${step} at ${joiner.name} (t=${clock.now()})`;
        try {
          await firstSyncUnderWay(joiner, at);
        } catch (error) {
          trace(`${at}: ${(error as Error).message}`);
          if (!isServiceError(error) && !(error as Error).message.startsWith('network:')) {
            problems.push(`${at}: ${(error as Error).stack ?? String(error)}`);
            break;
          }
        }
      }
      clock.advance(random.int(10 * 60_000));
      const store = random.pick(stores);
      const roll = random.next();
      // Drawn only when restores are on: without them a seed's random stream is what it always was.
      const restoreStep = options.restores === true && random.chance(0.1);
      const failoverStep = !restoreStep && options.failover === true && random.chance(0.1);
      const at = `step ${step} at ${store.name} (t=${clock.now()})`;
      try {
        // Asked only by the counter's actions: a store still in its first sync may not have its key
        // yet (a ServiceError like any refusal), and its sync steps must still run.
        const scope = () => store.scope();
        if (failoverStep) {
          // A till at store A sells at one of its nodes, loses the reply, and sends the same sale
          // to the other node (which may not know the customer yet: then it refuses, and the pair
          // is one sale).
          const [first, second] = random.chance(0.5) ? [stores[0]!, stores[3]!] : [stores[3]!, stores[0]!];
          const email = random.pick(emails);
          const receiptNumber = `store A-${(receipt += 1)}`;
          const sale = { identification: email, receiptNumber, subtotal: 5 + random.int(40), ...(random.chance(0.5) ? { redemptions: [reward.publicId] } : {}) };
          trace(`${at}: a till sends ${receiptNumber} to ${email} at ${first.name}, then at ${second.name}`);
          await placeOrder(first.engine, await first.scope(), sale);
          answered(first, receiptNumber);
          await meetings.spent(first.engine, first.storeId, receiptNumber);
          await placeOrder(second.engine, await second.scope(), sale);
          sentTwice.push(receiptNumber);
        } else if (restoreStep) {
          if (store.backups && random.chance(0.35)) {
            // This copy's last round (the link may fail it), then its disk dies and the folder is
            // restored from one of its last backups (an operator may keep several, and reach for
            // an older one): what it had not sent goes with it.
            const backup = random.pick(store.backups);
            await store.client.syncOnce().catch(() => undefined);
            const unsent = await unsentReceipts(store.engine);
            for (const receiptNumber of unsent) mayBeLost.add(receiptNumber);
            trace(`${at}: lost, restored from backup ${store.backups.indexOf(backup) + 1} of ${store.backups.length} (unsent: ${unsent.join(', ') || 'none'})`);
            await restarting(store);
            await store.close();
            const restored = await startStoreNode(clock, openSqlite(backup), { ...store.key, vendorId: central.vendor.vendorId, credential: store.credential }, store.link, undefined, store.snapshotPage);
            Object.assign(store, { engine: restored.engine, client: restored.client, scope: restored.scope, close: restored.close });
          } else {
            store.backups = [...(store.backups ?? []), await backupOf(store.engine, backupDir)].slice(-MAX_BACKUPS);
            trace(`${at}: backed up`);
          }
        } else if (roll < 0.3) {
          const email = random.pick(emails);
          await registerInStore(store.engine, await scope(), { email });
          const receiptNumber = `${store.name}-${(receipt += 1)}`;
          trace(`${at}: registers ${email}, sells ${receiptNumber}`);
          await placeOrder(store.engine, await scope(), { identification: email, receiptNumber, subtotal: 5 + random.int(40) });
          answered(store, receiptNumber);
        } else if (roll < 0.5) {
          const email = random.pick(emails);
          const receiptNumber = `${store.name}-${(receipt += 1)}`;
          trace(`${at}: sells ${receiptNumber} to ${email} with a reward`);
          await placeOrder(store.engine, await scope(), { identification: email, receiptNumber, subtotal: 3, redemptions: [reward.publicId] });
          answered(store, receiptNumber);
          await meetings.spent(store.engine, store.storeId, receiptNumber);
        } else if (roll < 0.55) {
          // Half of these give a phone too: added to a customer who has none (central takes it, or
          // keeps the one another customer took first: docs/sync.md, Conflicts).
          const email = random.pick(emails);
          trace(`${at}: registers ${email}`);
          await registerInStore(store.engine, await scope(), random.chance(0.5) ? { email, phone: { number: random.pick(phones) } } : { email });
        } else if (roll < 0.6) {
          const open = await store.engine.db.selectFrom('pos_sessions').select('hash').where('store_id', '=', store.storeId).where('status', '=', 'active').execute();
          trace(`${at}: closes a session (${open.length} open)`);
          if (open.length > 0) await closeSession(store.engine, await scope(), random.pick(open).hash);
        } else if (roll < 0.83 && options.overlap === true && random.chance(0.5)) {
          // A round under way when the counter sells to (or voids a sale of) the store: both run,
          // each at its own awaits, and each may fail on its own.
          const email = random.pick(emails);
          const receiptNumber = `${store.name}-${(receipt += 1)}`;
          const recent = await store.engine.db.selectFrom('orders').select('receipt_number').where('store_id', '=', store.storeId).orderBy('created_at', 'desc').limit(3).execute();
          const voided = random.chance(0.3) && recent.length > 0 ? random.pick(recent).receipt_number : null;
          const counter = voided
            ? async () => void (await voidOrder(store.engine, await scope(), voided))
            : async () => {
                await placeOrder(store.engine, await scope(), { identification: email, receiptNumber, subtotal: 5 + random.int(40), ...(random.chance(0.3) ? { redemptions: [reward.publicId] } : {}) });
                answered(store, receiptNumber);
              };
          trace(`${at}: sync round while the counter ${voided ? `voids ${voided}` : `sells ${receiptNumber} to ${email}`}`);
          const [round, sale] = await Promise.allSettled([store.client.syncOnce(), counter()]);
          trace(`${at}: the round ${round.status === 'fulfilled' ? `pushed ${round.value.pushed}, pulled ${round.value.pulled}` : (round.reason as Error).message}; the counter ${sale.status === 'fulfilled' ? 'done' : (sale.reason as Error).message}`);
          // The counter's refusal (a ServiceError) is as in any step; a round's network fault too.
          if (sale.status === 'rejected' && !isServiceError(sale.reason)) throw sale.reason;
          if (round.status === 'rejected') throw round.reason;
          if (sale.status === 'fulfilled') cases.salesDuringRounds += 1;
        } else if (roll < 0.83) {
          trace(`${at}: sync round`);
          const round = await store.client.syncOnce();
          trace(`${at}: sync round pushed ${round.pushed}, pulled ${round.pulled}`);
        } else if (roll < 0.85) {
          // Central drops superseded versions from its log while stores are anywhere in it.
          trace(`${at}: central compacts its log`);
          cases.compactedLog += await compactChangeLog(central.engine.db);
        } else if (roll < 0.93) {
          // A partition lasting hours: the store sells on its own meanwhile.
          store.link.partitioned = !store.link.partitioned;
          trace(`${at}: link ${store.link.partitioned ? 'partitioned' : 'back'}`);
          clock.advance(random.int(3 * HOUR));
        } else if (roll < 0.955) {
          // A void at the till: of a recent sale of this store it holds (another node's too), maybe
          // one central or another till voided meanwhile (recent ones, so that voids meet).
          const sold = await store.engine.db.selectFrom('orders').select('receipt_number').where('store_id', '=', store.storeId).orderBy('created_at', 'desc').limit(3).execute();
          const voided = sold.length > 0 ? random.pick(sold).receipt_number : null;
          trace(`${at}: till voids ${voided ?? 'nothing'}`);
          if (voided) {
            const seen = await meetings.beforeVoid(store.engine, store.storeId, voided);
            await voidOrder(store.engine, await scope(), voided);
            await meetings.voided(store.engine, store.storeId, voided, seen);
            // Half the time an integration voids the same sale at central while the till's void is
            // still on its way (central holds the sale, not yet voided): the voids meet (Conflicts).
            if (random.chance(0.5) && (await standsAt(central.engine, store.storeId, voided))) {
              trace(`${at}: central voids ${voided} too, before the till's void reaches it`);
              const seenAtCentral = await meetings.beforeVoid(central.engine, store.storeId, voided);
              await voidOrder(central.engine, await authenticateApiKey(central.engine, store.key.apiKey), voided);
              await meetings.voided(central.engine, store.storeId, voided, seenAtCentral);
            }
            // The customer then redeems points at another node, which holds the points the sale
            // earned and has not heard of the void: the spend meets the void, and the balance may
            // end below zero (docs/sync.md, "Offline policy": central flags it).
            await spendElsewhere(store.storeId, voided, at);
          }
        } else if (roll < 0.97) {
          // A void at central (an integration calling central for a store), of a recent sale it has.
          const key = random.pick(storeKeys);
          const sold = await central.engine.db.selectFrom('orders').select('receipt_number').where('store_id', '=', key.storeId).orderBy('created_at', 'desc').limit(3).execute();
          const voided = sold.length > 0 ? random.pick(sold).receipt_number : null;
          trace(`${at}: central voids ${voided ?? 'nothing'}`);
          if (voided) {
            const seenAtCentral = await meetings.beforeVoid(central.engine, key.storeId, voided);
            await voidOrder(central.engine, await authenticateApiKey(central.engine, key.apiKey), voided);
            await meetings.voided(central.engine, key.storeId, voided, seenAtCentral);
            // Half the time a till of that store voids the same sale before its node hears of
            // central's void (the node holds it, not voided): the voids meet (Conflicts).
            const holders = [];
            for (const node of stores) if (node.storeId === key.storeId && (await standsAt(node.engine, key.storeId, voided))) holders.push(node);
            if (random.chance(0.5) && holders.length > 0) {
              const node = random.pick(holders);
              trace(`${at}: till at ${node.name} voids ${voided} too, before central's void reaches it`);
              const seen = await meetings.beforeVoid(node.engine, key.storeId, voided);
              await voidOrder(node.engine, await node.scope(), voided);
              await meetings.voided(node.engine, key.storeId, voided, seen);
            }
            // The customer then cashes in those points at a node that has not heard of the void.
            await spendElsewhere(key.storeId, voided, at);
          }
        } else {
          trace(`${at}: process restarts`);
          await restart(store);
        }
      } catch (error) {
        trace(`${at}: ${(error as Error).message}`);
        if (isServiceError(error)) continue;
        if ((error as Error).message.startsWith('network:')) continue;
        problems.push(`step ${step} at ${store.name}: ${(error as Error).stack ?? String(error)}`);
        break;
      }
    }
    // Heal, then let every store push and pull until nothing moves.
    for (const store of stores) store.link.heal();
    for (let round = 0; round < 3; round += 1) for (const store of stores) await store.client.syncOnce();
    await watchFirstSync();
    // A store that joins last takes its first sync from the compacted log and must agree too.
    cases.compactedLog += await compactChangeLog(central.engine.db);
    const late = await pairStore(central, clock, storeKeys[0]!, (credential) => central.transportFor(credential));
    stores.push({ ...late, link: new LossyLink(central.transportFor('unused'), random, { drop: 0, loseReply: 0, duplicate: 0, replayOld: 0 }), nodeId: late.engine.nodeId, name: 'late store', key: storeKeys[0]! });
    await checkConvergence(central.engine, stores, problems, cases);
    // Counted once the convergence checks above have judged every node after these meetings.
    Object.assign(cases, await meetings.count(central.engine));
    // No sale a counter answered is missing at central, unless a restore took it before it was sent.
    const atCentral = new Set((await central.engine.db.selectFrom('orders').select('receipt_number').execute()).map((o) => o.receipt_number.split('~')[0]));
    for (const receiptNumber of sold) if (!atCentral.has(receiptNumber) && !mayBeLost.has(receiptNumber)) problems.push(`sale ${receiptNumber} never reached central`);
    cases.repeatsVoided = await checkSalesSentTwice(central.engine, sentTwice.filter((r) => !mayBeLost.has(r)), problems);
    cases.restoresFollowed = await exceptionsOf(central.engine, 'node_restored');
    cases.customerFromCentral = stores.reduce((sum, store) => sum + store.link.customersAnswered, 0);
    cases.acknowledged = stores.reduce((sum, store) => sum + store.link.pushesDisturbed, 0);
    return { seed, problems, cases };
  } catch (error) {
    problems.push(`seed ${seed} crashed: ${(error as Error).stack ?? String(error)}`);
    return { seed, problems, cases };
  } finally {
    for (const store of stores) await store.close();
    await central.close();
    rmSync(backupDir, { recursive: true, force: true });
  }
}

/**
 * Each sale a till sent to both of store A's nodes (and no restore took away) is at central twice, the copy central applied
 * second renamed and named by one `sale_repeated` exception, and voided (whatever else a till or
 * central voided). The standing copy is named by one too only when a till voided its node's copy
 * of the sale after central took that copy as the repeat ("the cashier voided the sale"): then it
 * is voided as well. Returns how many `sale_repeated` exceptions central recorded.
 */
export async function checkSalesSentTwice(central: Engine, receipts: string[], problems: string[]): Promise<number> {
  const repeats = await central.db.selectFrom('sync_exceptions').select(['subject', 'message']).where('kind', '=', 'sale_repeated').execute();
  const namings = (id: number) => repeats.filter((r) => r.subject === `order ${id}`);
  for (const receiptNumber of receipts) {
    const copies = await central.db
      .selectFrom('orders')
      .select(['id', 'receipt_number', 'status'])
      .where((eb) => eb.or([eb('receipt_number', '=', receiptNumber), eb('receipt_number', 'like', `${receiptNumber}~%`)]))
      .execute();
    const flagged = copies.filter((c) => namings(Number(c.id)).length > 0);
    const repeat = copies.find((c) => c.receipt_number !== receiptNumber);
    const standing = copies.find((c) => c.receipt_number === receiptNumber);
    // The standing copy named only as voided because a node voided this repeat.
    const standingNamed = standing ? namings(Number(standing.id)) : [];
    const standingRight = standingNamed.length === 0 || (standingNamed.length === 1 && standing!.status === 'voided' && repeat !== undefined && standingNamed[0]!.message.includes(`its repeat, order ${repeat.id} `));
    if (copies.length !== 2 || !repeat || !standing || namings(Number(repeat.id)).length !== 1 || repeat.status !== 'voided' || !standingRight) {
      problems.push(`sale ${receiptNumber} sent to both nodes of store A: at central ${JSON.stringify(copies)}, flagged as the repeat: ${JSON.stringify(flagged)}`);
    }
  }
  return repeats.length;
}

/** A copy of a store's database as a backup of its folder holds it. */
async function backupOf(engine: Engine, dir: string): Promise<Buffer> {
  const file = join(dir, 'backup.db');
  rmSync(file, { force: true });
  await sql`vacuum into ${file}`.execute(engine.db);
  return readFileSync(file);
}

/** Receipts of the orders a store wrote and has not had acknowledged. */
async function unsentReceipts(engine: Engine): Promise<string[]> {
  const rows = await engine.db.selectFrom('sync_changes').select('data').where('tbl', '=', 'orders').execute();
  return rows.map((row) => String((JSON.parse(row.data) as { receipt_number: string }).receipt_number));
}

export async function checkConvergence(central: Engine, stores: SimStore[], problems: string[], cases: Cases): Promise<void> {
  const centralBalances = await balancesOf(central);
  const centralEntries = new Set((await central.db.selectFrom('ledger_entries').select('id').execute()).map((r) => Number(r.id)));
  const centralOrders = new Set((await central.db.selectFrom('orders').select('id').execute()).map((r) => Number(r.id)));
  const centralSessions = await sessionStates(central);
  const centralContacts = await contactsOf(central);
  const centralRows = await replicatedState(central.db);
  if ((await findBalanceMismatches(central.db)).length > 0) problems.push('central: a cached balance differs from the sum of its entries');
  // However many nodes voided a sale, each of its entries stays reversed at most once.
  const reversals = await central.db.selectFrom('ledger_entries as r').select('r.reverses_id').where('r.reverses_id', 'is not', null)
    .where((eb) => eb.not(eb.exists(eb.selectFrom('ledger_entries as undone').select('undone.id').whereRef('undone.reverses_id', '=', 'r.id')))).execute();
  const reversedOnce = new Set<number>();
  cases.reversedOnce = await exceptionsOf(central, 'void_repeated');
  for (const { reverses_id: target } of reversals) {
    if (reversedOnce.has(Number(target))) problems.push(`central: ledger entry ${target} is reversed more than once`);
    reversedOnce.add(Number(target));
  }
  const rejected = await central.db.selectFrom('sync_verdicts').select(['node_id', 'node_seq', 'message']).where('verdict', '=', 'rejected').execute();
  for (const r of rejected) problems.push(`central rejected event ${r.node_seq} of node ${r.node_id}: ${r.message}`);
  for (const store of stores) {
    const outbox = await summariseOutbox(store.engine.db);
    if (outbox.pending > 0) problems.push(`${store.name}: ${outbox.pending} events never acknowledged`);
    if ((await findBalanceMismatches(store.engine.db)).length > 0) problems.push(`${store.name}: a cached balance differs from the sum of its entries`);
    const own = await store.engine.db.selectFrom('orders').select('id').execute();
    for (const order of own) {
      if (nodeOfId(Number(order.id)) === store.nodeId && !centralOrders.has(Number(order.id))) problems.push(`${store.name}: order ${order.id} never reached central`);
    }
    const entries = new Set((await store.engine.db.selectFrom('ledger_entries').select('id').execute()).map((r) => Number(r.id)));
    for (const id of centralEntries) if (!entries.has(id)) problems.push(`${store.name}: misses ledger entry ${id}`);
    for (const id of entries) if (nodeOfId(id) !== store.nodeId) cases.sameEntries += 1;
    for (const id of entries) if (!centralEntries.has(id)) problems.push(`${store.name}: has ledger entry ${id} central never got`);
    const balances = await balancesOf(store.engine);
    cases.balances += centralBalances.size;
    for (const [key, balance] of centralBalances) {
      if ((balances.get(key) ?? 0) !== balance) problems.push(`${store.name}: balance ${key} is ${balances.get(key) ?? 0}, central says ${balance}`);
    }
    for (const [key, balance] of balances) if (!centralBalances.has(key) && balance !== 0) problems.push(`${store.name}: balance ${key} is ${balance}, unknown at central`);
    const sessions = await sessionStates(store.engine);
    for (const [id, state] of centralSessions) if (sessions.get(id) !== state) problems.push(`${store.name}: check-in ${id} is ${sessions.get(id) ?? 'missing'}, central says ${state}`);
    for (const state of centralSessions.values()) if (!state.startsWith('active/')) cases.sessions += 1;
    // Every table's rows, those of tables a first sync skipped as empty included.
    const rows = await replicatedState(store.engine.db);
    for (const [table, ids] of Object.entries(centralRows)) {
      if (table === 'balances') continue;
      const held = new Set(rows[table]);
      const missing = ids.filter((id) => !held.has(id));
      const extra = rows[table]!.filter((id) => !ids.includes(id));
      if (missing.length + extra.length > 0) problems.push(`${store.name}: ${table} misses ${missing.join(', ') || 'nothing'} and has ${extra.join(', ') || 'nothing'} beyond central's rows`);
      cases.sameRows += ids.length;
    }
    const contacts = await contactsOf(store.engine);
    for (const [id, contact] of centralContacts) {
      if (contacts.has(id) && contacts.get(id) !== contact) problems.push(`${store.name}: customer ${id} has ${contacts.get(id)}, central says ${contact}`);
      if (contacts.has(id) && !contact.endsWith(' -')) cases.contacts += 1;
    }
  }
}

/** A store's first-sync snapshot position as last saved (sync-client.ts), null before its first page. */
async function snapshotPosition(engine: Engine): Promise<{ empty?: string[]; done: boolean } | null> {
  const saved = await getMeta(engine.db, 'sync_snapshot');
  return saved === null ? null : (JSON.parse(saved) as { empty?: string[]; done: boolean });
}

/** Whether a node holds the store's sale of this receipt, not voided. */
async function standsAt(engine: Engine, storeId: number, receiptNumber: string): Promise<boolean> {
  const order = await engine.db.selectFrom('orders').select('status').where('store_id', '=', storeId).where('receipt_number', '=', receiptNumber).executeTakeFirst();
  return order !== undefined && order.status !== 'voided';
}

/** Exceptions of a kind central recorded. */
async function exceptionsOf(central: Engine, kind: string): Promise<number> {
  return (await central.db.selectFrom('sync_exceptions').select('id').where('kind', '=', kind).execute()).length;
}

/** Each customer's email and phone, as one string to compare. */
async function contactsOf(engine: Engine): Promise<Map<number, string>> {
  const rows = await engine.db.selectFrom('users').select(['id', 'email_key', 'phone']).execute();
  return new Map(rows.map((row) => [Number(row.id), `${row.email_key ?? '-'} ${row.phone ?? '-'}`]));
}

async function sessionStates(engine: Engine): Promise<Map<number, string>> {
  const rows = await engine.db.selectFrom('pos_sessions').select(['id', 'status', 'closed_reason']).execute();
  return new Map(rows.map((r) => [Number(r.id), `${r.status}/${r.closed_reason ?? '-'}`]));
}

async function balancesOf(engine: Engine): Promise<Map<string, number>> {
  const rows = await engine.db.selectFrom('ledger_accounts').select(['holder_type', 'holder_id', 'currency_id', 'balance']).execute();
  return new Map(rows.filter((r) => Number(r.balance) !== 0).map((r) => [`${r.holder_type}:${r.holder_id}:${r.currency_id}`, Number(r.balance)]));
}

/** A customer's email as a node holds it (a merged copy's is its survivor's), or null. */
async function emailAt(engine: Engine, userId: number): Promise<string | null> {
  const user = await engine.db.selectFrom('users').select(['email_key', 'merged_into']).where('id', '=', userId).executeTakeFirst();
  if (!user) return null;
  if (user.merged_into !== null) return emailAt(engine, Number(user.merged_into));
  return user.email_key;
}

/** The emails of central's customers. */
async function customerEmailsAt(engine: Engine): Promise<string[]> {
  const rows = await engine.db.selectFrom('users').select('email_key').where('email_key', 'is not', null).orderBy('id').execute();
  return rows.map((row) => row.email_key!);
}

/** The program's customers at central (a store joining finds them in its snapshot). */
async function membersAt(engine: Engine): Promise<number> {
  const { rows } = await sql<{ n: number }>`select count(*) as n from user_vendors`.execute(engine.db);
  return Number(rows[0]!.n);
}
