import { ServiceError } from '../../shared/errors';
import { type Engine, transact, type VendorScope } from '../engine';
import { parseProgramCountry } from './set-up-vendor';

/**
 * The program's country, chosen at `punchcard init`, changed (a merchant who set up in the wrong one
 * was stuck with it). It decides how a phone typed without a +code is read, how cédulas are checked
 * and how amounts are written. Phones are stored in E.164, so those already saved keep their
 * country; stores keep their own. A program that serves a list of countries must serve its own.
 */
export function changeProgramCountry(engine: Engine, scope: VendorScope, input: string): Promise<{ before: string; after: string }> {
  const country = parseProgramCountry(input);
  return transact(engine, async (trx) => {
    const vendor = await trx.selectFrom('vendors').select(['country', 'countries']).where('id', '=', scope.vendorId).executeTakeFirstOrThrow();
    const served = vendor.countries === null ? null : (JSON.parse(vendor.countries) as string[]);
    if (served && !served.includes(country))
      throw new ServiceError('validation_failed', `The program serves ${served.join(', ')}: its country must be one of them (${country} is not).`, 'country');
    if (vendor.country !== country) await trx.updateTable('vendors').set({ country, updated_at: engine.clock.now() }).where('id', '=', scope.vendorId).execute();
    return { before: vendor.country, after: country };
  });
}
