import { Anchor } from '@mantine/core';
import type { ReactNode } from 'react';
import { customerIdInSubject } from '../../../shared/exception-subject';
import type { ChainException } from './admin-api';
import { ExceptionSaid, fill, knownSaid, type SaidNames, subjectInWords } from './ExceptionSaid';
import { useAdminStrings } from './strings';

// A sync exception's text names customers by id ("user 8589934607: … of customer 4294967302"): each
// one the node named (a member of the program) shows by name, linked to their profile, where staff
// act on it; an id alone found nobody in search. An overdraft's subject adds its currency
// ("user 8589934607 currency 8589934593"): the link stands for all of it, the message names the currency.
const MESSAGE_CUSTOMER = /\bcustomer (\d+)\b/g;

/**
 * "Subject: message", with the customers it mentions named and linked. The message is written in
 * the screen's language from what central recorded it says; one recorded before that (no data), or
 * of a key this screen does not know, shows central's English text.
 */
export function ExceptionText({ exception, nodeLabels }: { exception: ChainException; nodeLabels: ReadonlyMap<number, string> }) {
  const t = useAdminStrings();
  const names = new Map(exception.customers.map((c) => [String(c.id), c.name]));
  const subjectId = customerIdInSubject(exception.subject);
  // The subject always links (as before), by name when known; a sale by its receipt, linked to its
  // customer's page (their ledger lists it by receipt) when they are a member.
  const { order } = exception;
  const subject =
    subjectId !== undefined ? (
      <CustomerLink id={subjectId} text={names.get(subjectId) ?? exception.subject} />
    ) : order ? (
      <ReceiptSubject receipt={order.receipt_number} customer={order.customer} />
    ) : (
      subjectInWords(t, exception.subject)
    );
  const said = knownSaid(exception.message_data);
  // A sale the message names by id: "the sale to Bo", linked to Bo's page (their ledger lists it by
  // receipt); one whose customer is no member stays central's "order 12".
  const saidNames: SaidNames = {
    customer: (id) => namedCustomer(String(id), names),
    order: (id) => {
      const customer = exception.mentioned_orders.find((o) => o.id === id)?.customer;
      const name = customer == null ? undefined : names.get(String(customer));
      return name === undefined ? undefined : <>{fill(t.exceptionSaidSaleTo, { customer: <CustomerLink id={String(customer)} text={name} /> })}</>;
    },
    node: (id) => nodeLabels.get(id),
  };
  return (
    <>
      {subject}: {said === null ? withCustomersLinked(exception.message, names) : <ExceptionSaid said={said} names={saidNames} />}
    </>
  );
}

/** A customer the template mentions: by name and linked when a member of the program, else their id (as the English text). */
function namedCustomer(id: string, names: ReadonlyMap<string, string>): ReactNode {
  const name = names.get(id);
  return name === undefined ? id : <CustomerLink id={id} text={name} />;
}

function withCustomersLinked(message: string, names: ReadonlyMap<string, string>): ReactNode[] {
  const parts: ReactNode[] = [];
  let from = 0;
  for (const match of message.matchAll(MESSAGE_CUSTOMER)) {
    const id = match[1]!;
    const name = names.get(id);
    if (name === undefined) continue;
    // "customer " stays: the text around it is the node's (English) sentence.
    parts.push(message.slice(from, match.index + match[0].length - id.length), <CustomerLink key={match.index} id={id} text={name} />);
    from = match.index + match[0].length;
  }
  parts.push(message.slice(from));
  return parts;
}

/** "receipt R-9" ("recibo R-9"): what the cashier and the customer read, not the order's internal id. */
function ReceiptSubject({ receipt, customer }: { receipt: string; customer: number | null }) {
  const t = useAdminStrings();
  const words = fill(t.exceptionSubject_receipt, { receipt });
  return customer === null ? <>{words}</> : <Anchor href={`#/customers/${customer}`}>{words}</Anchor>;
}

function CustomerLink({ id, text }: { id: string; text: string }) {
  return <Anchor href={`#/customers/${id}`}>{text}</Anchor>;
}
