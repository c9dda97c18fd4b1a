import type { OrderDraft } from './order-draft';

// The order a cashier is typing, kept in the tab's sessionStorage by the customer's session: Esc,
// a reload or the browser's Back mid-order no longer throws it away. Its receipt number comes
// back with it (the node still answers a resend of it once). One tab's typing only: another
// screen's cashier starts their own. Drafts of sessions long over are dropped.

const KEY = 'punchcard.order-drafts';
/** A session open longer than this is not being typed for any more. */
const KEEP_MS = 12 * 60 * 60 * 1000;

interface Kept {
  draft: OrderDraft;
  at: number;
}

function readAll(): Record<string, Kept> {
  try {
    const parsed: unknown = JSON.parse(sessionStorage.getItem(KEY) ?? '{}');
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, Kept>) : {};
  } catch {
    return {};
  }
}

function writeAll(all: Record<string, Kept>, now: number): void {
  for (const [hash, kept] of Object.entries(all)) if (!(now - kept.at < KEEP_MS)) delete all[hash];
  try {
    if (Object.keys(all).length === 0) sessionStorage.removeItem(KEY);
    else sessionStorage.setItem(KEY, JSON.stringify(all));
  } catch {
    // Storage full or refused (a private window): the draft lives as long as the dialog, as before.
  }
}

/** Whether a draft holds anything the cashier typed (the receipt number alone is not typing). */
function isTyped(draft: OrderDraft): boolean {
  return String(draft.subtotal).trim() !== '' || String(draft.quickPay).trim() !== '' || draft.items.length > 0 || draft.rewards.length > 0;
}

function isDraft(value: unknown): value is OrderDraft {
  const d = value as Partial<OrderDraft> | null;
  return (
    typeof d === 'object' && d !== null &&
    typeof d.receiptNumber === 'string' && d.receiptNumber !== '' &&
    ['string', 'number'].includes(typeof d.subtotal) && ['string', 'number'].includes(typeof d.quickPay) &&
    Array.isArray(d.items) && d.items.every((item) => typeof item === 'object' && item !== null && typeof item.name === 'string') &&
    Array.isArray(d.rewards) && d.rewards.every((id) => typeof id === 'string')
  );
}

/** The draft kept for this session, if the cashier had typed one. */
export function keptDraft(sessionHash: string, now = Date.now()): OrderDraft | null {
  const kept = readAll()[sessionHash];
  return kept && now - kept.at < KEEP_MS && isDraft(kept.draft) && isTyped(kept.draft) ? kept.draft : null;
}

/** Keeps what is typed for this session (an emptied form forgets it). */
export function keepDraft(sessionHash: string, draft: OrderDraft, now = Date.now()): void {
  const all = readAll();
  if (isTyped(draft)) all[sessionHash] = { draft, at: now };
  else delete all[sessionHash];
  writeAll(all, now);
}

/** The order was placed, or the session ended: nothing to come back to. */
export function forgetDraft(sessionHash: string, now = Date.now()): void {
  const all = readAll();
  if (!(sessionHash in all)) return;
  delete all[sessionHash];
  writeAll(all, now);
}
