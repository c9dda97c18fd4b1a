import { afterEach, describe, expect, it } from 'vitest';
import { addCard } from '../../src/core/cards/create-card';
import { removeMemberOnRequest } from '../../src/core/customer-care/remove-member';
import { linkUserToVendor } from '../../src/core/customers/customer-store';
import { registerCustomer } from '../../src/core/customers/register-customer';
import { type Engine, transact } from '../../src/core/engine';
import { importMembers } from '../../src/core/import/import-members';
import { readMemberFile } from '../../src/core/import/member-file';
import { addOwner } from '../../src/core/staff/add-owner';
import type { StaffPrincipal } from '../../src/core/staff/staff-sessions';
import { setUpVendor } from '../../src/core/tenancy/set-up-vendor';
import { linkCard } from '../../src/core/user-cards/link-card';
import { openEngine, sqliteBackend, testVendor } from '../support/backends';
import { ManualClock } from '../support/clock';

// Nineteenth round: a row known by a card alone is enrolled by that card (the members export writes
// such members). A card whose holder left the program must not bring them back that way, as their
// email does not (`account_not_member`); a card its holder swapped for another, still a member, is
// free to link.

const open: Array<{ close(): Promise<unknown> }> = [];
afterEach(async () => {
  for (const handle of open.splice(0).reverse()) await handle.close();
});

async function programWithCardHolder(): Promise<{ engine: Engine; vendorId: number; owner: StaffPrincipal; holderId: number; email: string }> {
  const opened = await openEngine(sqliteBackend, new ManualClock());
  open.push(opened);
  const { engine } = opened;
  const vendor = await setUpVendor(engine, testVendor('Café Tarjeta'));
  const other = await setUpVendor(engine, testVendor('Café Otro'));
  const { staff } = await addOwner(engine, { vendorId: vendor.vendorId, email: 'owner@card.test' });
  const owner: StaffPrincipal = { sessionId: 0, staffId: staff.id, vendorId: vendor.vendorId, email: staff.email, name: staff.name, role: 'owner', storeId: null };
  const email = 'bruno.card@left.test';
  const { user } = await registerCustomer(engine, { vendorId: vendor.vendorId, firstName: 'Bruno', lastName: 'Sale', email, password: 'correct horse 1', terms: true });
  await transact(engine, async (trx) => {
    // A member of another program too: leaving this one keeps his account.
    await linkUserToVendor(trx, engine, { userId: user.id, vendorId: other.vendorId });
    const card = await addCard(trx, engine, { vendorId: vendor.vendorId }, { number: 'CARD7788' });
    const row = await trx.selectFrom('cards').selectAll().where('id', '=', card.id).executeTakeFirstOrThrow();
    await linkCard(trx, engine, { vendorId: vendor.vendorId, userId: user.id, card: row, storeId: null });
  });
  return { engine, vendorId: vendor.vendorId, owner, holderId: user.id, email };
}

const run = (engine: Engine, vendorId: number, text: string) => importMembers(engine, { vendorId, fileName: 'm.csv', records: readMemberFile(text).records, dryRun: false });

const membersNamed = (engine: Engine, vendorId: number, firstName: string) =>
  engine.db
    .selectFrom('user_vendors as uv')
    .innerJoin('users as u', 'u.id', 'uv.user_id')
    .select('u.id')
    .where('uv.vendor_id', '=', vendorId)
    .where('uv.removed_at', 'is', null)
    .where('u.first_name', '=', firstName)
    .execute();

describe('a row known by a card', () => {
  it('is refused when the card’s holder left the program, as a row with their email is', async () => {
    const { engine, vendorId, owner, holderId, email } = await programWithCardHolder();
    await removeMemberOnRequest(engine, owner, holderId, { reason: 'asked', forfeitBalances: true });

    const byEmail = await run(engine, vendorId, `first_name,last_name,email,card\nBruno,Sale,${email},CARD7788`);
    expect(byEmail.reported.map((r) => r.reason)).toEqual(['account_not_member']);
    const byCard = await run(engine, vendorId, `first_name,last_name,email,card\nBruno,Sale,,CARD7788`);
    expect(byCard.imported).toBe(0);
    expect(byCard.reported.map((r) => [r.reason, r.field])).toEqual([['account_not_member', 'card']]);
    expect(await membersNamed(engine, vendorId, 'Bruno')).toEqual([]);
  });

  it('links a card its holder, still a member, swapped for another', async () => {
    const { engine, vendorId, holderId } = await programWithCardHolder();
    await engine.db.updateTable('user_cards').set({ removed_at: engine.clock.now() }).where('user_id', '=', holderId).execute();

    const outcome = await run(engine, vendorId, `first_name,last_name,email,card\nCarla,Ríos,carla@example.com,CARD7788`);
    expect(outcome.imported).toBe(1);
    const [carla] = await membersNamed(engine, vendorId, 'Carla');
    const link = await engine.db.selectFrom('user_cards').select('user_id').where('removed_at', 'is', null).where('vendor_id', '=', vendorId).executeTakeFirstOrThrow();
    expect(link.user_id).toBe(carla!.id);
  });
});
