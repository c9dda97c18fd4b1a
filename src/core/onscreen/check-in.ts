import type { ScannerStation } from '../../shared/schemas/scanners';
import type { StoreScope } from '../credentials/authenticate';
import { refuseBlockedLink } from '../customer-care/blocked';
import { confirmMembership, findUserVendor, linkUserToVendor } from '../customers/customer-store';
import { type Engine, transact } from '../engine';
import { identifyCustomer, withCustomerFromCentral } from './identify-customer';
import { onceMoreOnClash } from '../storage/once-more-on-clash';
import { identifiedAtKiosk } from './kiosk-view';
import { counterOf, loadCounterInfo, openSession, type PosSessionRow, publishAll } from './pos-session';

export interface CheckInResult {
  session: PosSessionRow;
  vendor: { id: number; name: string };
  pos: { id: number; name: string; status: string } | null;
}

/**
 * POST /onscreen: the customer given by any identification is checked in at the API key's store.
 * A customer of another program who identifies here joins this one (the account is shared); the
 * counter sees them in full once they confirm (seenAtCounter).
 * `via: 'scanner'` marks a check-in by a device the node reads (its session events say so), and
 * `station` the station that scanner serves (counter or kiosk), carried by the session events; with
 * the key's role it tells whether a kiosk identified the customer (kiosk-view: what a kiosk key reads).
 * `screen`: the cashier screen that made the check-in, carried by its session events.
 */
export async function checkIn(engine: Engine, scope: StoreScope, input: { identification: string; via?: 'scanner'; station?: ScannerStation; screen?: string | undefined }): Promise<CheckInResult> {
  const counter = counterOf(scope);
  const { result, events } = await onceMoreOnClash(engine.dialect, () => withCustomerFromCentral(engine, input.identification, () => transact(engine, async (trx) => {
    const { vendor, store, pos } = await loadCounterInfo(engine, trx, counter);
    const found = await identifyCustomer(trx, engine, { vendorId: vendor.id, country: store.country, identification: input.identification });
    // The current membership is read once, to link the customer; a membership made again keeps
    // the block of the one they ended, so the block is checked on the link.
    const current = await findUserVendor(trx, found.user.id, vendor.id);
    // The app's barcode is the customer's own act; an email or phone typed at the counter is not.
    const byCustomer = found.by === 'token';
    const link = await linkUserToVendor(trx, engine, { userId: found.user.id, vendorId: vendor.id, byCounter: !byCustomer, via: 'counter' }, { current });
    refuseBlockedLink(link);
    if (byCustomer) await confirmMembership(trx, link);
    const opened = await openSession(trx, engine, counter, { userId: found.user.id, identifiedBy: found.by, cardNumber: found.cardNumber, openedBy: input.via ?? scope.role, atKiosk: identifiedAtKiosk(scope.role, input) });
    return {
      result: { session: opened.session, vendor: { id: vendor.id, name: vendor.name }, pos: pos && { id: pos.id, name: pos.name, status: pos.status } },
      events: opened.events,
    };
  })));
  publishAll(engine, events, { ...(input.station ? { station: input.station } : {}), ...(input.screen ? { screen: input.screen } : {}) });
  return result;
}
