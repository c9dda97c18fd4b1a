import { Anchor } from '@mantine/core';
import type { ReactNode } from 'react';
import { customerIdInSubject } from '../../../shared/exception-subject';
import type { ChainException } from './admin-api';

// A sync exception's text names customers by id ("user 8589934607: … of customer 4294967302"): each
// one the node named (a member of the program) shows by name, linked to their profile, where staff
// act on it; an id alone found nobody in search. An overdraft's subject adds its currency
// ("user 8589934607 currency 8589934593"): the link stands for all of it, the message names the currency.
const MESSAGE_CUSTOMER = /\bcustomer (\d+)\b/g;

/** "Subject: message", with the customers it mentions named and linked. */
export function ExceptionText({ exception }: { exception: ChainException }) {
  const names = new Map(exception.customers.map((c) => [String(c.id), c.name]));
  const subjectId = customerIdInSubject(exception.subject);
  // The subject always links (as before), by name when known.
  const subject = subjectId === undefined ? exception.subject : <CustomerLink id={subjectId} text={names.get(subjectId) ?? exception.subject} />;
  return (
    <>
      {subject}: {withCustomersLinked(exception.message, names)}
    </>
  );
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

function CustomerLink({ id, text }: { id: string; text: string }) {
  return <Anchor href={`#/customers/${id}`}>{text}</Anchor>;
}
