import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { NodeApiError } from '../../src/renderer/src/api/client';
import { createStaffLock, kioskSettingsAccess, STAFF_LOCK_COOLDOWN_MS, STAFF_LOCK_IDLE_MS, STAFF_LOCK_MAX_TRIES, type TerminalOf } from '../../src/renderer/src/kiosk/staff-lock';
import { useKioskStrings } from '../../src/renderer/src/kiosk/strings';

// The kiosk's "Staff only" lock in front of Settings: a key of the kiosk's own store opens it, any
// other key is a wrong try, five in a row refuse every try for 60 s; a fake node and fake timers.

const OWN = { vendor: { id: 3, name: 'Corner Café' }, store: { id: 7, name: 'Market Street', address: '' } };
const KEYS: Record<string, typeof OWN> = {
  'pk_cashier-7': OWN,
  'pk_kiosk-7': OWN,
  'pk_cashier-8': { vendor: OWN.vendor, store: { id: 8, name: 'Harbour Road', address: '' } },
  'pk_other-vendor': { vendor: { id: 4, name: 'Tea House' }, store: { id: 7, name: 'Tea House', address: '' } },
};

const invalidKey = () => new NodeApiError('That api_key is not valid.', { status: 401, code: 'invalid_api_key' });

/** GET /app/terminal as the node answers it for the keys above. */
function fakeNode(): TerminalOf & ReturnType<typeof vi.fn> {
  return vi.fn(async (key: string) => {
    const terminal = KEYS[key];
    if (!terminal) throw invalidKey();
    return terminal;
  }) as never;
}

describe('kiosk staff lock', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('ignores scans while the dialog is open and remembers one came until it closes; a closed lock lets scans through', () => {
    const lock = createStaffLock(fakeNode(), OWN);
    expect(lock.getState().ignoresScan()).toBe(false);
    expect(lock.getState().scanIgnored).toBe(false);
    lock.getState().show();
    expect(lock.getState().ignoresScan()).toBe(true);
    expect(lock.getState().scanIgnored).toBe(true);
    lock.getState().close();
    expect(lock.getState().scanIgnored).toBe(false);
    expect(lock.getState().ignoresScan()).toBe(false);
    // Opened again: nothing said until another scan comes.
    lock.getState().show();
    expect(lock.getState().scanIgnored).toBe(false);
  });

  it("opens for a cashier or kiosk key of the kiosk's own store, asking the node once per key", async () => {
    const node = fakeNode();
    const lock = createStaffLock(node, OWN);
    expect(lock.getState().open).toBe(false);
    lock.getState().show();
    expect(lock.getState().open).toBe(true);
    expect(await lock.getState().submit('  pk_cashier-7 ')).toBe(true);
    expect(node).toHaveBeenCalledTimes(1);
    expect(node).toHaveBeenCalledWith('pk_cashier-7');
    expect(lock.getState()).toMatchObject({ open: false, checking: false, error: null, failures: 0, lockedUntil: null });
    // Nothing of the key is kept in the lock's state.
    expect(JSON.stringify(lock.getState())).not.toContain('pk_');

    lock.getState().show();
    expect(await lock.getState().submit('pk_kiosk-7')).toBe(true);
  });

  it('refuses unknown keys and keys of another store or vendor, counting the tries left', async () => {
    const lock = createStaffLock(fakeNode(), OWN);
    lock.getState().show();
    expect(await lock.getState().submit('pk_nonsense')).toBe(false);
    expect(lock.getState()).toMatchObject({ open: true, error: 'wrong', failures: 1 });
    expect(await lock.getState().submit('pk_cashier-8')).toBe(false);
    expect(await lock.getState().submit('pk_other-vendor')).toBe(false);
    expect(lock.getState()).toMatchObject({ open: true, error: 'wrong', failures: 3, lockedUntil: null });
    // A right key resets the count.
    expect(await lock.getState().submit('pk_kiosk-7')).toBe(true);
    expect(lock.getState().failures).toBe(0);
  });

  it('after 5 wrong keys in a row refuses every try (even the right key) for 60 s, then counts afresh', async () => {
    const node = fakeNode();
    const lock = createStaffLock(node, OWN);
    lock.getState().show();
    for (let i = 1; i <= STAFF_LOCK_MAX_TRIES; i++) expect(await lock.getState().submit(`pk_wrong-${i}`)).toBe(false);
    const lockedAt = Date.now();
    expect(lock.getState()).toMatchObject({ error: 'wrong', failures: 5, lockedUntil: lockedAt + STAFF_LOCK_COOLDOWN_MS });
    expect(node).toHaveBeenCalledTimes(5);

    // Locked: not even asked; Cancel and the gear again buy no new tries.
    expect(await lock.getState().submit('pk_cashier-7')).toBe(false);
    lock.getState().close();
    lock.getState().show();
    expect(await lock.getState().submit('pk_cashier-7')).toBe(false);
    expect(node).toHaveBeenCalledTimes(5);
    expect(lock.getState().lockedUntil).toBe(lockedAt + STAFF_LOCK_COOLDOWN_MS);

    vi.advanceTimersByTime(STAFF_LOCK_COOLDOWN_MS - 1);
    expect(lock.getState().lockedUntil).not.toBeNull();
    vi.advanceTimersByTime(1);
    expect(lock.getState()).toMatchObject({ lockedUntil: null, failures: 0, error: null });

    // Left alone that long, the dialog closed itself; the gear again starts a fresh count: four
    // wrong keys do not lock again, a right one opens.
    expect(lock.getState().open).toBe(false);
    lock.getState().show();
    for (let i = 1; i < STAFF_LOCK_MAX_TRIES; i++) await lock.getState().submit(`pk_wrong-${i}`);
    expect(lock.getState()).toMatchObject({ failures: 4, lockedUntil: null });
    expect(await lock.getState().submit('pk_cashier-7')).toBe(true);
  });

  it('an unreachable node or a failing one is not a wrong try', async () => {
    const unreachable = new NodeApiError('offline', { unreachable: true });
    const node = vi.fn<TerminalOf>().mockRejectedValueOnce(unreachable).mockRejectedValueOnce(new NodeApiError('Internal error', { status: 500 }));
    const lock = createStaffLock(node, OWN);
    lock.getState().show();
    expect(await lock.getState().submit('pk_cashier-7')).toBe(false);
    expect(lock.getState()).toMatchObject({ error: 'unreachable', failures: 0 });
    expect(await lock.getState().submit('pk_cashier-7')).toBe(false);
    expect(lock.getState()).toMatchObject({ error: 'failed', failures: 0 });
  });

  it('drops the reply of a check when the dialog was closed meanwhile (Escape, Cancel)', async () => {
    let answer!: (value: typeof OWN) => void;
    const lock = createStaffLock(() => new Promise((resolve) => (answer = resolve)), OWN);
    lock.getState().show();
    const pending = lock.getState().submit('pk_cashier-7');
    expect(lock.getState().checking).toBe(true);
    // A second submit while one is under way is ignored.
    expect(await lock.getState().submit('pk_cashier-7')).toBe(false);
    lock.getState().close();
    answer(OWN);
    expect(await pending).toBe(false);
    expect(lock.getState()).toMatchObject({ open: false, checking: false });
  });

  it('ignores empty keys and keys typed while closed', async () => {
    const node = fakeNode();
    const lock = createStaffLock(node, OWN);
    expect(await lock.getState().submit('pk_cashier-7')).toBe(false); // not shown
    lock.getState().show();
    expect(await lock.getState().submit('   ')).toBe(false);
    expect(node).not.toHaveBeenCalled();
    expect(lock.getState().failures).toBe(0);
  });

  it('closes itself after 45 s without typing, keeping the wrong-key count', async () => {
    const lock = createStaffLock(fakeNode(), OWN);
    lock.getState().show();
    await lock.getState().submit('pk_nonsense');
    vi.advanceTimersByTime(STAFF_LOCK_IDLE_MS - 1_000);
    lock.getState().touch(); // typing restarts the wait
    vi.advanceTimersByTime(STAFF_LOCK_IDLE_MS - 1);
    expect(lock.getState().open).toBe(true);
    vi.advanceTimersByTime(1);
    expect(lock.getState()).toMatchObject({ open: false, error: null, failures: 1 });
  });

  it('is not offered in the desktop app (its kiosk key is known to nobody), asked for in a browser', () => {
    expect(kioskSettingsAccess({ punchcard: { nodeUrl: 'http://127.0.0.1:8080', role: 'kiosk', credential: 'pk_x' } })).toBe('hidden');
    expect(kioskSettingsAccess({ punchcard: undefined })).toBe('staff-key');
  });

  it('has its texts in English and Spanish, with the tries left and the countdown', () => {
    const { en, es } = useKioskStrings.all;
    expect(en.staffTitle).toBe('Staff only');
    expect(es.staffTitle).toBe('Solo personal');
    expect(en.staffWrong(1)).toMatch(/1 try left/);
    expect(en.staffWrong(3)).toMatch(/3 tries left/);
    expect(es.staffWrong(3)).toMatch(/Quedan 3 intentos/);
    expect(en.staffLocked(42)).toMatch(/42 s/);
    expect(es.staffLocked(42)).toMatch(/42 s/);
  });
});
