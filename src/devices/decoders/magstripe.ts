import { luhnValid } from './luhn';
import { isPaymentNetworkNumber } from './payment-card';
import { type Reject, reject } from './result';

export { luhnValid };

// Magnetic stripe swipes, ISO/IEC 7813, as a keyboard-emulation reader types them (MagTek and most
// others: `%track1?;track2?+track3?`, then Enter; an unreadable track comes out as `%E?`, `;E?`, `+E?`).
//
//   track 1 (format B): %B<PAN 1-19>^<NAME 2-26>^<YYMM|^><service code 3|^><discretionary>?
//   track 2:            ;<PAN 1-19>=<YYMM|=><service code 3|=><discretionary>?
//
// What comes out is the card number and its expiry, nothing else: the raw tracks, the holder's name,
// the service code and the discretionary data are read only to check the structure and never leave
// this module, in results or in reject reasons. Anything log-facing uses `maskPan`.

export type CardRejectCode =
  | 'empty'
  | 'unexpected_data'
  | 'no_end_sentinel'
  | 'duplicate_track'
  | 'malformed_track1'
  | 'malformed_track2'
  | 'unsupported_format'
  | 'pan_too_short'
  | 'bad_luhn'
  | 'track_mismatch'
  | 'no_readable_track'
  | 'payment_card';

export interface CardExpiry {
  year: number;
  month: number;
}

export interface CardRead {
  ok: true;
  kind: 'card';
  /** The card number: digits only. Use it for the check-in; never log it, log `masked`. */
  pan: string;
  last4: string;
  /** `maskPan(pan)`: every digit but the last four replaced by `*`. */
  masked: string;
  /** From the YYMM field; null when the track leaves it out or the month is not 01–12. */
  expiry: CardExpiry | null;
}

export type CardResult = CardRead | Reject<CardRejectCode>;

export interface SwipeOptions {
  /**
   * Require a valid Luhn check digit (default true). Turn off only for legacy loyalty card stock
   * encoded without check digits: it removes the only integrity check a keyboard-emulation swipe has.
   */
  requireLuhn?: boolean;
  /**
   * Refuse a payment card as `payment_card` (default false: the parser reads any ISO 7813 card).
   * Check-in sets it (`scanFromKeyboardLine`): a bank card swiped by mistake is never looked up.
   */
  refusePaymentCards?: boolean;
}

/** ISO/IEC 7812-1: a primary account number has 8 to 19 digits. */
export const MIN_PAN_LENGTH = 8;
export const MAX_PAN_LENGTH = 19;

/**
 * The only form of a card number fit for logs, screens and error messages: every character but the
 * last four replaced by `*` (`4242424242424242` → `************4242`). Numbers shorter than 8 are
 * masked entirely, so no more than half of a number is ever shown. The first six (BIN) are hidden
 * too: a loyalty terminal has no use for the issuer, and the less shown the less to leak.
 */
export function maskPan(pan: string): string {
  const visible = pan.length >= MIN_PAN_LENGTH ? 4 : 0;
  return '*'.repeat(pan.length - visible) + pan.slice(pan.length - visible);
}

/** True when the text looks like a swipe (starts with a track 1 or track 2 start sentinel). */
export function looksLikeSwipe(text: string): boolean {
  return text.startsWith('%') || text.startsWith(';');
}

/** A payment card swiped instead of a loyalty card (the reason, like every reason, never holds input). */
export const PAYMENT_CARD: Reject<'payment_card'> = reject('payment_card', 'a payment card, not a loyalty card: its number is not read');

type Track = { kind: 1 | 2 | 3; body: string };

type TrackRead =
  | { state: 'unreadable' }
  | { state: 'unsupported' }
  // `financial`: the track has a payment card's layout (format B, or track 2 with an expiry).
  | { state: 'read'; pan: string; expiry: CardExpiry | null; financial: boolean }
  | { state: 'malformed'; rejection: Reject<CardRejectCode> };

const TRACK1 = /^B(\d{1,19})\^([^^]{2,26})\^(\d{4}|\^)(\d{3}|\^)([^^]*)$/;
const TRACK2 = /^(\d{1,19})=(\d{4}|=)(\d{3}|=)(\d*)$/;
/** Track 2 holding only a number (common on loyalty cards): `;<number>?`. */
const TRACK2_NUMBER_ONLY = /^(\d{1,19})$/;

/**
 * Reads the card number from a swipe: one string with any of track 1, 2 and 3, each between its start
 * sentinel (`%`, `;`, `+`) and `?`, optionally ending in CR/LF.
 *
 * - A track marked `E` (or empty) is unreadable and skipped; track 3 is skipped always.
 * - Strict elsewhere: a track without its end sentinel, a malformed track 1 or 2, characters outside
 *   any track, or tracks 1 and 2 with different numbers reject the whole swipe, even when another
 *   track is fine. A keyboard-emulation reader's parity and LRC checks are not visible to us, and a
 *   damaged or interleaved swipe is better re-swiped than half-trusted.
 * - Track 1 in a format other than B (not a financial card): skipped when track 2 is readable,
 *   otherwise `unsupported_format`.
 * - With `refusePaymentCards`, a payment card (a network's number range on a format B track 1 or a
 *   track 2 with an expiry, see payment-card.ts) is refused as `payment_card`, before any other
 *   check of its number. Loyalty stock with only the number on track 2 (`;<number>?`) is read
 *   whatever its range.
 * - The number must have 8–19 digits and, unless `requireLuhn: false`, a valid Luhn check digit. The
 *   rule is the same for payment and loyalty cards: loyalty numbers are issued Luhn-valid.
 */
export function parseSwipe(swipe: string, options: SwipeOptions = {}): CardResult {
  const requireLuhn = options.requireLuhn ?? true;
  const text = swipe.replace(/[\r\n]+$/, '');
  if (text.length === 0) return reject('empty', 'swipe is empty');

  const tracks: Track[] = [];
  let pos = 0;
  while (pos < text.length) {
    const sentinel = text.charAt(pos);
    if (sentinel !== '%' && sentinel !== ';' && sentinel !== '+') {
      return reject('unexpected_data', 'swipe has characters outside any track');
    }
    const end = text.indexOf('?', pos + 1);
    const body = end < 0 ? text.slice(pos + 1) : text.slice(pos + 1, end);
    const kind: Track['kind'] = sentinel === '%' ? 1 : sentinel === '+' || tracks.some((t) => t.kind === 2) ? 3 : 2;
    // Another start sentinel inside means this track's `?` never came and the next track's was found.
    if (end < 0 || (kind === 1 ? /[%;]/ : /[%;+]/).test(body)) {
      return reject('no_end_sentinel', `track ${kind} has no end sentinel (partial swipe)`);
    }
    if (kind !== 3 && tracks.some((t) => t.kind === kind)) {
      return reject('duplicate_track', `swipe has track ${kind} twice`);
    }
    tracks.push({ kind, body });
    pos = end + 1;
  }

  const reads: Array<{ kind: 1 | 2; read: TrackRead }> = [];
  for (const track of tracks) {
    if (track.kind === 3) continue;
    const read = track.kind === 1 ? readTrack1(track.body) : readTrack2(track.body);
    if (read.state === 'malformed') return read.rejection;
    reads.push({ kind: track.kind, read });
  }

  const found = reads.flatMap(({ kind, read }) => (read.state === 'read' ? [{ kind, ...read }] : []));
  if (options.refusePaymentCards && found.some((f) => f.financial && isPaymentNetworkNumber(f.pan))) return PAYMENT_CARD;
  if (found.length === 0) {
    return reads.some(({ read }) => read.state === 'unsupported')
      ? reject('unsupported_format', 'track 1 is not ISO 7813 format B and no other track is readable')
      : reject('no_readable_track', 'swipe has no readable track 1 or 2');
  }
  for (const { kind, pan } of found) {
    if (pan.length < MIN_PAN_LENGTH) {
      return reject('pan_too_short', `track ${kind} card number has fewer than ${MIN_PAN_LENGTH} digits`);
    }
    if (requireLuhn && !luhnValid(pan)) {
      return reject('bad_luhn', `track ${kind} card number fails the Luhn check`);
    }
  }
  const [first, second] = found;
  if (!first) return reject('no_readable_track', 'swipe has no readable track 1 or 2');
  if (second && second.pan !== first.pan) {
    return reject('track_mismatch', 'tracks 1 and 2 carry different card numbers');
  }
  const track2 = found.find((f) => f.kind === 2);
  const pan = first.pan;
  return {
    ok: true,
    kind: 'card',
    pan,
    last4: pan.slice(-4),
    masked: maskPan(pan),
    expiry: track2?.expiry ?? found.find((f) => f.expiry)?.expiry ?? null,
  };
}

function readTrack1(body: string): TrackRead {
  if (body === '' || body === 'E') return { state: 'unreadable' };
  if (!body.startsWith('B')) return { state: 'unsupported' };
  const match = TRACK1.exec(body);
  if (!match) return { state: 'malformed', rejection: reject('malformed_track1', 'track 1 does not follow ISO 7813 format B') };
  return { state: 'read', pan: match[1] ?? '', expiry: parseExpiry(match[3] ?? ''), financial: true };
}

function readTrack2(body: string): TrackRead {
  if (body === '' || body === 'E') return { state: 'unreadable' };
  const match = TRACK2.exec(body);
  if (match) return { state: 'read', pan: match[1] ?? '', expiry: parseExpiry(match[2] ?? ''), financial: /^\d{4}$/.test(match[2] ?? '') };
  const numberOnly = TRACK2_NUMBER_ONLY.exec(body);
  if (numberOnly) return { state: 'read', pan: numberOnly[1] ?? '', expiry: null, financial: false };
  return { state: 'malformed', rejection: reject('malformed_track2', 'track 2 does not follow ISO 7813') };
}

function parseExpiry(yymm: string): CardExpiry | null {
  if (!/^\d{4}$/.test(yymm)) return null;
  const month = Number(yymm.slice(2));
  if (month < 1 || month > 12) return null;
  return { year: 2000 + Number(yymm.slice(0, 2)), month };
}
