import { ServiceError } from '../../shared/errors';
import { hashPassword } from '../customers/passwords';
import { type Engine, transact } from '../engine';

/**
 * A signed-in staff member with no password yet (an owner `punchcard init` or `punchcard owner`
 * signed in by their one-time link) chooses one: without it, the session ending locks them out.
 * Only a first password: changing one is the emailed reset, which proves the email.
 */
export async function setFirstStaffPassword(engine: Engine, input: { staffId: number; password: string }): Promise<void> {
  // Checked first, as an invitation's: a too-short password changes nothing.
  const passwordHash = await hashPassword(input.password);
  await transact(engine, async (trx) => {
    const set = await trx
      .updateTable('staff_accounts')
      .set({ password_hash: passwordHash, updated_at: engine.clock.now() })
      .where('id', '=', input.staffId)
      .where('password_hash', 'is', null)
      .executeTakeFirst();
    if (Number(set.numUpdatedRows) === 0) throw new ServiceError('password_already_set');
  });
}
