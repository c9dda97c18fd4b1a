import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { formatDate } from '../../src/renderer/src/admin/format';
import { languageStore } from '../../src/renderer/src/i18n/language-store';

// Nineteenth round: an expiry date in the back office is the program's day. An imported
// `points_expire_on` 2027-03-31 of a New York program ends at 23:59:59.999 there, 03:59:59.999Z on
// 1 April, which the screen showed as "Apr 1, 2027" while it read every date in UTC.

beforeAll(() => vi.stubGlobal('document', { documentElement: { lang: 'en' } }));
afterEach(() => languageStore.setState({ language: 'en' }));
afterAll(() => vi.unstubAllGlobals());

describe('an expiry date in the back office', () => {
  it('is the day in the program’s time zone, in the screen’s language', () => {
    expect(formatDate('2027-04-01T03:59:59.999Z', 'America/New_York')).toBe('Mar 31, 2027');
    expect(formatDate('2027-03-31T14:59:59.999Z', 'Asia/Tokyo')).toBe('Mar 31, 2027');
    languageStore.setState({ language: 'es' });
    expect(formatDate('2027-04-01T03:59:59.999Z', 'America/New_York')).toBe('31 mar 2027');
  });

  it('is UTC’s day when the browser cannot read the zone', () => {
    expect(formatDate('2027-04-01T03:59:59.999Z', 'Mars/Olympus_Mons')).toBe('Apr 1, 2027');
  });
});
