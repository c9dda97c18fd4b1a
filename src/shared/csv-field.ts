// One field of the CSV files the back office hands out (the period statement, an import's problem
// rows, the members list), which merchants open in a spreadsheet. A value a spreadsheet would run as
// a formula gets a leading apostrophe (it shows as text, and Excel drops the apostrophe when it
// saves): one starting with = @ a tab or a carriage return, and one starting with + or - unless it
// is only digits and number punctuation — a phone ("+1 415 555 0100", "+34600111222") or an amount
// ("-12.50"), which run nothing and which an import must read back as written. "-2+3" or
// "+1+HYPERLINK(…)" is guarded: the review of the sixteenth round's import found those let through.

/** Digits, spaces and the punctuation of numbers and phones after a leading sign: no function, no reference. */
const SIGNED_NUMBER = /^[+-][\d\s().,/-]*$/;

/** Whether a spreadsheet would read the value as a formula that may run something. */
export function startsLikeFormula(value: string): boolean {
  if (/^[=@\t\r]/.test(value)) return true;
  return /^[+-]/.test(value) && !SIGNED_NUMBER.test(value);
}

/**
 * A field read back from such a file: the apostrophe `csvField` put before a formula-like value
 * taken off ("'-ana@example.com" is the member's email "-ana@example.com"). A spreadsheet that
 * saved the file took it off already; a file sent back as it was still has it.
 */
export function unguardedField(value: string): string {
  return value.startsWith("'") && startsLikeFormula(value.slice(1)) ? value.slice(1) : value;
}

/** The value as one field: guarded as above, then quoted when it holds the separator, a quote or a line break (quotes doubled). */
export function csvField(value: string, separator = ','): string {
  const safe = startsLikeFormula(value) ? `'${value}` : value;
  return safe.includes(separator) || /["\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}
