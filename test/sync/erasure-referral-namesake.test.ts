import { describe, expect, it } from 'vitest';
import { authenticateApiKey } from '../../src/core/credentials/authenticate';
import { confirmAccountDeletion } from '../../src/core/customers/account-deletion';
import { joinByReferral } from '../../src/core/customers/join-by-referral';
import { issueCode } from '../../src/core/customers/one-time-codes';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { updateProgramSettings } from '../../src/core/rules/settings/update-program-settings';
import { BACKENDS } from '../support/backends';
import { ManualClock } from '../support/clock';
import { closedAfterEach, startCentralOn } from './support/chain';

// A referral record linked to its own ledger entry names one friend; erasing another friend
// with the same first name must not wipe it (the first-name fallback is for records written before the link).

const keep = closedAfterEach();

describe.each(BACKENDS)('namesake referral records ($name)', (backend) => {
  it('erasing one friend leaves a namesake friend’s linked record named', async () => {
    const clock = new ManualClock();
    const central = await startCentralOn(backend, clock, keep);
    const scope = await authenticateApiKey(central.engine, central.vendor.apiKey);
    await updateProgramSettings(central.engine, scope, { referralPoints: 25 });
    const referrer = await registerInStore(central.engine, scope, { email: 'rhea@r2-namesake.test', firstName: 'Rhea' });
    const referrerId = Number(referrer.session.user_id);
    const { referral_code: code } = await central.engine.db.selectFrom('user_vendors').select('referral_code').where('user_id', '=', referrerId).executeTakeFirstOrThrow();
    const first = await joinByReferral(central.engine, { code, firstName: 'Noorwyn', lastName: 'Haddad', email: 'noorwyn1@r2-namesake.test', password: 'friendly password', language: 1 });
    clock.advance(1000);
    await joinByReferral(central.engine, { code, firstName: 'Noorwyn', lastName: 'Other', email: 'noorwyn2@r2-namesake.test', password: 'friendly password', language: 1 });

    const deletion = await issueCode(central.engine.db, central.engine, { userId: first.userId, vendorId: central.vendor.vendorId, purpose: 'account_deletion' });
    await confirmAccountDeletion(central.engine, { vendorId: central.vendor.vendorId, code: deletion });

    const names = (await central.engine.db.selectFrom('transactions').select('rewards').where('user_id', '=', referrerId).where('kind', '=', 'referral').execute())
      .flatMap((row) => (JSON.parse(row.rewards) as Array<{ name: string }>).map((reward) => reward.name))
      .sort();
    expect(names).toEqual(['A friend joined', 'Noorwyn joined']);
  });
});
