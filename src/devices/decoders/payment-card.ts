import { luhnValid } from './luhn';

// A payment card swiped at check-in by mistake (the customer's bank card instead of the loyalty
// card) is refused as what it is: its number is never looked up, sent to central, stored or logged.
// A card counts as a payment card when its number is in a payment network's range (below) and the
// swipe carries a payment card's layout (see `parseSwipe`), or when a line that is not a readable
// swipe holds such a number, Luhn-valid, right before a field separator: a swipe typed through
// another keyboard layout (`^`, `=`, `?` come out as other characters), or behind a reader's prefix.

/**
 * Issuer number ranges (first digits, inclusive) of the card networks a customer may carry. Narrow
 * on purpose where a network shares a first digit with retail stock (6 is "merchandising"): a
 * loyalty card wrongly refused cannot check in at all, a rare bank card missed is only looked up.
 */
const NETWORK_RANGES: ReadonlyArray<readonly [string, string]> = [
  ['4', '4'], // Visa
  ['51', '55'], // Mastercard
  ['2221', '2720'], // Mastercard (2-series)
  ['2200', '2204'], // Mir
  ['34', '34'], // American Express
  ['37', '37'],
  ['300', '305'], // Diners Club
  ['36', '36'],
  ['38', '39'],
  ['3528', '3589'], // JCB
  ['6011', '6011'], // Discover
  ['644', '649'],
  ['65', '65'],
  ['622126', '622925'], // UnionPay (the ranges Discover also takes)
  ['624', '626'],
  ['6282', '6288'],
  ['5018', '5018'], // Maestro
  ['5020', '5020'],
  ['5038', '5038'],
  ['5893', '5893'],
  ['6304', '6304'],
  ['6759', '6759'],
  ['6761', '6763'],
];

/** True when the number starts in the range of a payment card network (Visa, Mastercard, Amex…). */
export function isPaymentNetworkNumber(pan: string): boolean {
  if (!/^\d{12,19}$/.test(pan)) return false;
  return NETWORK_RANGES.some(([low, high]) => {
    const head = pan.slice(0, low.length);
    return head >= low && head <= high;
  });
}

/**
 * True when a scanned line holds a payment card number as a track would: 13–19 digits in a
 * network's range, Luhn-valid, standing alone before a separator (not at the end of the line, so a
 * plain barcode of digits never counts). For lines that are not a readable swipe.
 */
export function holdsPaymentCardNumber(line: string): boolean {
  for (const match of line.matchAll(/(?:^|[^0-9])(\d{13,19})(?=[^0-9A-Za-z])/g)) {
    const digits = match[1] ?? '';
    if (isPaymentNetworkNumber(digits) && luhnValid(digits)) return true;
  }
  return false;
}
