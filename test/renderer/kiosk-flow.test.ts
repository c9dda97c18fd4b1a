import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { NodeApiError } from '../../src/renderer/src/api/client';
import type { CheckInReply, CustomerAtCounter, QueueEntry, ScanReply } from '../../src/renderer/src/api/terminal-api';
import { createKioskStore, type KioskApi, KIOSK_WELCOME_MS, welcomeFrom } from '../../src/renderer/src/kiosk/kiosk-store';

const session = (id: number, hash: string) => ({ pos_session: { id, hash } }) as unknown as CheckInReply;

function customer(first: string, last = 'Torres', overrides: Partial<CustomerAtCounter> = {}): CustomerAtCounter {
  return {
    user: { first_name: first, last_name: last, tier: { name: 'Gold' } },
    loyalty_balance: { data: [{ amount: 1200, currency: { id: 7, name: 'Points', code: null }, expiring: { data: [], page_size: 25, count: 0, page: 1 } }] },
    quick_pay_balance: { amount: 12.5, currency: { id: 8, name: 'Quick Pay', code: 'USD' }, expiring: { data: [], page_size: 25, count: 0, page: 1 } },
    ...overrides,
  } as unknown as CustomerAtCounter;
}

const notFound = () => new NodeApiError('No customer matches that card, phone, email or code.', { status: 404, code: 'customer_not_found' });

function fakeApi(overrides: Partial<KioskApi> = {}): KioskApi & { [K in keyof KioskApi]: ReturnType<typeof vi.fn> } {
  return {
    checkIn: vi.fn(async () => session(11, 'h11')),
    register: vi.fn(async () => session(12, 'h12')),
    scan: vi.fn(async () => ({ ...session(13, 'h13'), scan: { kind: 'barcode', symbology: null, masked: '••••0001' } }) as unknown as ScanReply),
    retrieve: vi.fn(async () => customer('Ana')),
    queue: vi.fn(async () => [] as QueueEntry[]),
    ...overrides,
  } as never;
}

describe('kiosk flow', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('checks in a typed identification, welcomes by first name with balances, then returns to idle', async () => {
    const api = fakeApi();
    const kiosk = createKioskStore(api, { quickPayCurrency: 'USD' });
    kiosk.getState().startTyping();
    kiosk.getState().edit({ identification: '  ana@example.com ' });
    await kiosk.getState().checkIn();
    expect(api.checkIn).toHaveBeenCalledWith('ana@example.com');
    expect(api.retrieve).toHaveBeenCalledWith('h11');
    const view = kiosk.getState().view;
    expect(view).toEqual({
      name: 'welcome',
      welcome: { sessionId: 11, firstName: 'Ana', tier: 'Gold', points: [{ currencyId: 7, name: 'Points', amount: 1200 }], quickPay: { amount: 12.5, currency: 'USD' } },
    });
    expect(kiosk.getState().draft.identification).toBe('');
    vi.advanceTimersByTime(KIOSK_WELCOME_MS - 1);
    expect(kiosk.getState().view.name).toBe('welcome');
    vi.advanceTimersByTime(1);
    expect(kiosk.getState().view.name).toBe('idle');
  });

  it('shows a friendly retry for an unknown code (not the raw error), keeps what was typed, then idles', async () => {
    const kiosk = createKioskStore(fakeApi({ checkIn: vi.fn(async () => Promise.reject(notFound())) }), { retryMs: 5000 });
    kiosk.getState().startTyping();
    kiosk.getState().edit({ identification: 'DEMO9999' });
    await kiosk.getState().checkIn();
    expect(kiosk.getState().view).toEqual({ name: 'retry', reason: 'not-found' });
    kiosk.getState().startTyping();
    expect(kiosk.getState().draft.identification).toBe('DEMO9999');
    kiosk.getState().backToIdle();
    await kiosk.getState().checkIn(); // nothing typed any more: nothing sent
    expect(kiosk.getState().view.name).toBe('idle');
  });

  it('returns to idle by itself after the retry message', async () => {
    const kiosk = createKioskStore(fakeApi({ scan: vi.fn(async () => Promise.reject(notFound())) }), { retryMs: 5000 });
    await expect(kiosk.getState().scanLine('NOPE')).rejects.toThrow(NodeApiError);
    expect(kiosk.getState().view).toEqual({ name: 'retry', reason: 'not-found' });
    vi.advanceTimersByTime(5000);
    expect(kiosk.getState().view.name).toBe('idle');
  });

  it('shows the node’s message for other errors', async () => {
    const kiosk = createKioskStore(fakeApi({ checkIn: vi.fn(async () => Promise.reject(new NodeApiError('This account is inactive.', { status: 422, code: 'account_inactive' }))) }));
    kiosk.getState().edit({ identification: 'x@y.z' });
    kiosk.getState().startTyping();
    await kiosk.getState().checkIn();
    // A refused identification goes back to the form with the node's words.
    expect(kiosk.getState().view.name).toBe('type');
    expect(kiosk.getState().formError).toBe('This account is inactive.');
  });

  it('shows an error page with the node’s message when it is not about the input', async () => {
    const kiosk = createKioskStore(fakeApi({ scan: vi.fn(async () => Promise.reject(new NodeApiError('Too many requests, slow down.', { status: 429, code: 'rate_limited' }))) }));
    await kiosk.getState().scanLine('12345678').catch(() => undefined);
    expect(kiosk.getState().view).toEqual({ name: 'error', message: 'Too many requests, slow down.' });
  });

  it('asks to scan again for an unreadable scan', async () => {
    const kiosk = createKioskStore(fakeApi({ scan: vi.fn(async () => Promise.reject(new NodeApiError('The scan could not be read.', { status: 400, code: 'unreadable_scan' }))) }));
    await kiosk.getState().scanLine('%B123').catch(() => undefined);
    expect(kiosk.getState().view).toEqual({ name: 'retry', reason: 'unreadable' });
  });

  it('says a bank card or an ID is no identification here, whether the screen or the node’s own reader read it', async () => {
    for (const code of ['payment_card_scanned', 'id_document_scanned']) {
      const kiosk = createKioskStore(fakeApi({ scan: vi.fn(async () => Promise.reject(new NodeApiError('This is a payment card, not a loyalty card.', { status: 422, code }))) }), { retryMs: 1000 });
      await kiosk.getState().scanLine('%B4111111111111111^DOE/JOHN^2512?').catch(() => undefined);
      expect(kiosk.getState().view).toEqual({ name: 'retry', reason: 'wrong-card' });
      vi.advanceTimersByTime(1000);
      kiosk.getState().scanRejected(code);
      expect(kiosk.getState().view).toEqual({ name: 'retry', reason: 'wrong-card' });
    }
  });

  it('says the store system is unreachable in its own words', async () => {
    const kiosk = createKioskStore(fakeApi({ checkIn: vi.fn(async () => Promise.reject(new NodeApiError('Failed to fetch', { unreachable: true }))) }));
    kiosk.getState().edit({ identification: 'DEMO0001' });
    await kiosk.getState().checkIn();
    expect(kiosk.getState().view).toEqual({ name: 'error', message: expect.stringContaining("can't reach the store system") });
  });

  it('a wedge scan checks in through POST /app/scans and welcomes', async () => {
    const api = fakeApi();
    const kiosk = createKioskStore(api);
    const reply = await kiosk.getState().scanLine('DEMO0001');
    expect(reply.scan.masked).toBe('••••0001');
    expect(api.retrieve).toHaveBeenCalledWith('h13');
    expect(kiosk.getState().view.name).toBe('welcome');
  });

  it('registers by phone (calling code only when chosen) and welcomes', async () => {
    const api = fakeApi({ retrieve: vi.fn(async () => customer('Guest', '')) });
    const kiosk = createKioskStore(api);
    kiosk.getState().startRegister();
    kiosk.getState().edit({ phone: '(415) 555-0123' });
    await kiosk.getState().register();
    expect(api.register).toHaveBeenLastCalledWith({ phone_number: { number: '4155550123' } });
    const view = kiosk.getState().view;
    expect(view.name === 'welcome' && view.welcome.firstName).toBeNull(); // "Guest" is not greeted by name

    kiosk.getState().startRegister();
    kiosk.getState().edit({ phone: '7700900123', callingCountry: 'GB', callingCode: '44', firstName: ' Ben ' });
    await kiosk.getState().register();
    expect(api.register).toHaveBeenLastCalledWith({ phone_number: { number: '7700900123', code: '44' }, first_name: 'Ben' });
  });

  it('keeps the register form and shows the node’s message when the phone is refused', async () => {
    const kiosk = createKioskStore(fakeApi({ register: vi.fn(async () => Promise.reject(new NodeApiError('That phone number is not valid.', { status: 400, code: 'validation_failed' }))) }));
    kiosk.getState().startRegister();
    kiosk.getState().edit({ phone: '12' });
    await kiosk.getState().register();
    expect(kiosk.getState().view.name).toBe('register');
    expect(kiosk.getState().formError).toBe('That phone number is not valid.');
    expect(kiosk.getState().draft.phone).toBe('12');
    kiosk.getState().edit({ phone: '123' });
    expect(kiosk.getState().formError).toBeNull();
  });

  it('drops a half-typed form after a while without a touch', () => {
    const kiosk = createKioskStore(fakeApi(), { inputIdleMs: 1000 });
    kiosk.getState().startTyping();
    kiosk.getState().edit({ identification: '41' });
    vi.advanceTimersByTime(900);
    kiosk.getState().touch();
    vi.advanceTimersByTime(900);
    expect(kiosk.getState().view.name).toBe('type');
    vi.advanceTimersByTime(100);
    expect(kiosk.getState().view.name).toBe('idle');
    expect(kiosk.getState().draft.identification).toBe('');
  });

  it('welcomes a customer checked in by the node’s HID scanner (session.opened on the stream)', async () => {
    const queue = vi.fn(async () => [{ pos_session: { id: 21, hash: 'h21' } }, { pos_session: { id: 22, hash: 'h22' } }] as unknown as QueueEntry[]);
    const api = fakeApi({ queue });
    const kiosk = createKioskStore(api);
    await kiosk.getState().sessionOpened(22);
    expect(api.retrieve).toHaveBeenCalledWith('h22');
    expect(kiosk.getState().view).toMatchObject({ name: 'welcome', welcome: { sessionId: 22 } });
    // The same session again (an echo) is ignored.
    await kiosk.getState().sessionOpened(22);
    expect(queue).toHaveBeenCalledTimes(1);
  });

  it('ignores the stream’s echo of its own check-in, and sessions opened while someone is typing', async () => {
    const api = fakeApi();
    const kiosk = createKioskStore(api);
    kiosk.getState().edit({ identification: 'ana@example.com' });
    await kiosk.getState().checkIn();
    await kiosk.getState().sessionOpened(11);
    expect(api.queue).not.toHaveBeenCalled();
    kiosk.getState().startRegister();
    await kiosk.getState().sessionOpened(99);
    expect(api.queue).not.toHaveBeenCalled();
    expect(kiosk.getState().view.name).toBe('register');
  });

  it('shows the retry screen when the node’s scanner read a code it could not check in, only when idle', () => {
    const kiosk = createKioskStore(fakeApi(), { retryMs: 1000 });
    kiosk.getState().scanRejected('customer_not_found');
    expect(kiosk.getState().view).toEqual({ name: 'retry', reason: 'not-found' });
    vi.advanceTimersByTime(1000);
    expect(kiosk.getState().view.name).toBe('idle');
    kiosk.getState().scanRejected('unreadable_scan');
    expect(kiosk.getState().view).toEqual({ name: 'retry', reason: 'unreadable' });
    vi.advanceTimersByTime(1000);
    kiosk.getState().startTyping();
    kiosk.getState().scanRejected('customer_not_found');
    expect(kiosk.getState().view.name).toBe('type');
  });

  it('greets the same customer scanning again once the welcome is over', async () => {
    const queue = vi.fn(async () => [{ pos_session: { id: 22, hash: 'h22' } }] as unknown as QueueEntry[]);
    let clock = 0;
    const kiosk = createKioskStore(fakeApi({ queue }), { welcomeMs: 1000, now: () => clock });
    await kiosk.getState().sessionOpened(22);
    clock = 500;
    await kiosk.getState().sessionOpened(22);
    expect(queue).toHaveBeenCalledTimes(1);
    clock = 1500;
    vi.advanceTimersByTime(1000);
    await kiosk.getState().sessionOpened(22);
    expect(queue).toHaveBeenCalledTimes(2);
    expect(kiosk.getState().view.name).toBe('welcome');
  });

  it('goes quietly back to idle when a streamed session is gone or cannot be read', async () => {
    const kiosk = createKioskStore(fakeApi({ queue: vi.fn(async () => [] as QueueEntry[]) }));
    await kiosk.getState().sessionOpened(5);
    expect(kiosk.getState().view.name).toBe('idle');
    const failing = createKioskStore(fakeApi({ queue: vi.fn(async () => Promise.reject(new NodeApiError('down', { unreachable: true }))) }));
    await failing.getState().sessionOpened(6);
    expect(failing.getState().view.name).toBe('idle');
  });

  it('drops a reply that comes after the customer left the flow', async () => {
    let answer!: (reply: CheckInReply) => void;
    const api = fakeApi({ checkIn: vi.fn(() => new Promise<CheckInReply>((resolve) => (answer = resolve))) });
    const kiosk = createKioskStore(api);
    kiosk.getState().edit({ identification: 'DEMO0001' });
    const pending = kiosk.getState().checkIn();
    kiosk.getState().backToIdle();
    answer(session(11, 'h11'));
    await pending;
    expect(api.retrieve).not.toHaveBeenCalled();
    expect(kiosk.getState().view.name).toBe('idle');
  });

  it('dispose() stops the timers', async () => {
    const kiosk = createKioskStore(fakeApi());
    await kiosk.getState().scanLine('DEMO0001');
    kiosk.getState().dispose();
    vi.advanceTimersByTime(KIOSK_WELCOME_MS * 2);
    expect(kiosk.getState().view.name).toBe('welcome');
  });
});

describe('kiosk welcome', () => {
  it('takes the quick-pay currency from the store when the reply has none', () => {
    const c = customer('Ana', 'Torres', { quick_pay_balance: { amount: 3, currency: null, expiring: { data: [], page_size: 25, count: 0, page: 1 } } } as never);
    expect(welcomeFrom(1, c, 'EUR').quickPay).toEqual({ amount: 3, currency: 'EUR' });
  });

  it('greets by name unless the customer is a nameless guest', () => {
    expect(welcomeFrom(1, customer('Guest', '')).firstName).toBeNull();
    expect(welcomeFrom(1, customer('Guest', 'Smith')).firstName).toBe('Guest');
    expect(welcomeFrom(1, customer('  Chloé ')).firstName).toBe('Chloé');
  });
});
