import { minorUnitDigits } from '../../../shared/currency-codes';
import { toMajorUnits } from '../../../shared/money';
import type { SyncExceptionSaid } from '../../../shared/sync-exception-said';

// A sync exception's message in English, from what it says: the text the HTTP API gives (its
// `message`) and the chain page shows for a language it has no template of. Written from the data
// so the two never disagree; each sentence is the one central wrote before the data was kept.

/** The sentence of `said`, in English. */
export function englishMessage(said: SyncExceptionSaid): string {
  switch (said.key) {
    case 'contact_of_other_program': {
      const { customer } = said.params;
      return `a contact or passport number set at the store is not taken: customer ${customer}'s account is another program's too: only they or the program that registered them change its contacts`;
    }
    case 'contact_kept': {
      const { contact, added, customer, held } = said.params;
      return `${contact} ${added} added at the store is not taken: customer ${customer} has ${contact} ${held} from central, which stays`;
    }
    case 'contact_held': {
      const { contact, value, holder, customer } = said.params;
      return `${contact === 'passport' ? 'passport number' : contact} ${value} set at the store is held by customer ${holder}; customer ${customer} keeps central's`;
    }
    case 'node_restored': {
      const { from, last } = said.params;
      return `the store sent events from ${from} that are not those central took at those numbers (up to ${last}): restored from a backup? It numbers them after ${last} and sends them again`;
    }
    case 'void_repeated': {
      const { receipt } = said.params;
      return `${receipt === null ? '' : `receipt ${receipt} `}voided here after another node had voided it: the later void was reversed, the order is reversed once`;
    }
    case 'offline_overdraft': {
      const { currency, code, balance, believed, paid_back } = said.params;
      const amount = amountIn(currency, code);
      const believedText = believed === null ? '' : ` (the store believed ${amount(believed)} was available)`;
      const paidBackText = paid_back === null ? '' : `; central paid ${amount(paid_back)} back to the customer in the last 7 days, which the store may not have heard of when it sold: the customer may hold both`;
      const spent = currency === null ? 'spends made' : `${currency} spent`;
      return `${spent} before the nodes heard of each other left a balance of ${amount(balance)}${believedText}; settled from the next credits${paidBackText}`;
    }
    case 'receipt_reused': {
      const { receipt, order, renamed } = said.params;
      return `receipt ${receipt} was already used by order ${order}; kept as ${renamed}`;
    }
    case 'sale_repeated': {
      const { receipt, order, renamed } = said.params;
      return `receipt ${receipt} came again with order ${order} (same customer, amounts and rewards within 12 hours: a till that sent it to two nodes); kept as ${renamed} and voided; order ${order} stands`;
    }
    case 'repeat_voided': {
      const { order, receipt, node } = said.params;
      return `voided because its repeat, order ${order} (${receipt}), was voided at node ${node}: the cashier voided the sale`;
    }
    case 'sale_in_other_currency': {
      const { receipt, sold, digits, subtotal, central } = said.params;
      const major = (subtotal / 10 ** digits).toFixed(digits);
      const amount = sold === null ? major : `${major} ${sold}`;
      const soldAs = sold === null ? `in a currency of ${digits} decimals (quick pay was paused)` : `in ${sold}`;
      const units = sold === null ? 'its minor units' : `${sold} minor units`;
      return `receipt ${receipt} was sold ${soldAs}, before the program’s quick pay became ${central}: its amounts (subtotal ${amount}) are kept as recorded in ${units}, which the program now reads as ${central}`;
    }
    case 'event_rejected': {
      const { code, reason } = said.params;
      return `${code}: ${reason}`;
    }
    case 'customer_merged': {
      const { contact, customer } = said.params;
      return `registered offline with the ${contact === 'email' ? 'email address' : 'phone number'} of customer ${customer}; merged into them (one customer now, with the points and visits of both)`;
    }
    case 'card_linked_twice': {
      const { customer, holder } = said.params;
      return `linked offline to customer ${customer} while already linked to customer ${holder}; the first link stands`;
    }
    case 'card_number_twice':
      return `card number created at two stores; card ${said.params.card} stands`;
  }
}

/** Staff read amounts as the screens show them: major units and the code (19.99 USD), or points by the currency's name. */
function amountIn(currency: string | null, code: string | null): (minor: number) => string {
  if (!code) return (minor) => `${minor} ${currency ?? ''}`.trimEnd();
  const digits = minorUnitDigits(code);
  return (minor) => `${toMajorUnits(minor, digits).toFixed(digits)} ${code}`;
}
