/** The domain of a From address (`Shop <no-reply@shop.example>` → `shop.example`). */
export function mailDomain(from: string): string {
  const address = /<([^<>]+)>\s*$/.exec(from)?.[1] ?? from;
  const domain = address.slice(address.lastIndexOf('@') + 1).trim().toLowerCase();
  return /^[a-z0-9.-]+$/.test(domain) && domain.includes('.') ? domain : 'punchcard.local';
}

/**
 * A Message-ID derived from the outbox id: if a message is sent again (a process died between
 * sending and recording it), the copies carry the same id and mail clients can tell.
 */
export function messageIdFor(id: number, from: string): string {
  return `<punchcard.${id}@${mailDomain(from)}>`;
}
