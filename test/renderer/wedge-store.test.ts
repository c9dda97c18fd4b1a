import { afterEach, describe, expect, it, vi } from 'vitest';
import { NodeApiError } from '../../src/renderer/src/api/client';
import type { ScanReply } from '../../src/renderer/src/api/terminal-api';
import { withoutScannedText } from '../../src/renderer/src/wedge/field-cleanup';
import { toastStore } from '../../src/renderer/src/wedge/toast-store';
import { createWedgeStore } from '../../src/renderer/src/wedge/wedge-store';

const reply = (masked: string) => ({ scan: { kind: 'barcode', symbology: null, masked } }) as unknown as ScanReply;

describe('wedge: a scan that landed in a text field', () => {
  it('is taken out from just before the caret', () => {
    expect(withoutScannedText({ value: 'ab4155550123', caret: 12 }, '4155550123')).toEqual({ value: 'ab', caret: 2 });
    expect(withoutScannedText({ value: 'ab4155550123cd', caret: 12 }, '4155550123')).toEqual({ value: 'abcd', caret: 2 });
  });

  it('uses the end of the text when the field has no caret (type=email, number)', () => {
    expect(withoutScannedText({ value: 'x@y.z DEMO0001', caret: null }, 'DEMO0001')).toEqual({ value: 'x@y.z ', caret: 6 });
  });

  it('leaves the field alone when the scan is not there (it went elsewhere, or the field filters keys)', () => {
    expect(withoutScannedText({ value: 'hello', caret: 5 }, 'DEMO0001')).toBeNull();
    expect(withoutScannedText({ value: '4155550123', caret: 3 }, '4155550123')).toBeNull();
    expect(withoutScannedText({ value: 'abc', caret: 3 }, '')).toBeNull();
  });
});

describe('wedge store', () => {
  afterEach(() => {
    for (const t of toastStore.getState().toasts) toastStore.getState().dismiss(t.id);
    vi.useRealTimers();
  });

  it('posts the line to the node and records the masked result', async () => {
    const store = createWedgeStore(() => 1234);
    const scan = vi.fn(async () => reply('••••0123'));
    await store.getState().deliver({ scan }, '4155550123');
    expect(scan).toHaveBeenCalledWith('4155550123');
    expect(store.getState()).toMatchObject({ lastScanAt: 1234, lastOutcome: { ok: true, masked: '••••0123' } });
    expect(toastStore.getState().toasts).toEqual([]);
  });

  it('shows the node’s message in a toast when the scan fails', async () => {
    vi.useFakeTimers();
    const store = createWedgeStore();
    const scan = vi.fn(async () => {
      throw new NodeApiError('No customer matches that card.', { status: 404, code: 'customer_not_found' });
    });
    await store.getState().deliver({ scan }, 'NOPE9999');
    expect(store.getState().lastOutcome).toEqual({ ok: false, message: 'No customer matches that card.' });
    expect(toastStore.getState().toasts).toMatchObject([{ title: 'Scan not accepted', message: 'No customer matches that card.', tone: 'error' }]);
    vi.advanceTimersByTime(6_000);
    expect(toastStore.getState().toasts).toEqual([]);
  });

  it('sends lines in the order they were read, each after the last one’s reply (a licence’s header first)', async () => {
    const store = createWedgeStore();
    const arrived: string[] = [];
    const answers: Array<() => void> = [];
    const scan = vi.fn((line: string) => {
      arrived.push(line);
      return new Promise<ScanReply>((resolve) => answers.push(() => resolve(reply(line))));
    });
    const first = store.getState().deliver({ scan }, 'ANSI 636014080102DL');
    const second = store.getState().deliver({ scan }, 'DCSDOE');
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(arrived).toEqual(['ANSI 636014080102DL']);
    answers[0]!();
    await first;
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(arrived).toEqual(['ANSI 636014080102DL', 'DCSDOE']);
    answers[1]!();
    await second;
  });

  it('toasts the same refusal once for lines refused one after the other, again once 3 s have passed', async () => {
    let clock = 1_000;
    const store = createWedgeStore(() => clock);
    const scan = vi.fn(async () => {
      throw new NodeApiError("Driver's licences and ID cards are not read here.", { status: 422, code: 'id_document_scanned' });
    });
    for (const line of ['ANSI 636014080102DL', 'DCSDOE', 'DACJOHN']) await store.getState().deliver({ scan }, line);
    expect(scan).toHaveBeenCalledTimes(3);
    expect(toastStore.getState().toasts).toHaveLength(1);
    clock += 3_001;
    await store.getState().deliver({ scan }, 'ANSI 636014080102DL');
    expect(toastStore.getState().toasts).toHaveLength(2);
  });

  it('says the node is unreachable in its own words when nothing answered', async () => {
    const store = createWedgeStore();
    const scan = vi.fn(async () => {
      throw new NodeApiError('Failed to fetch', { unreachable: true });
    });
    await store.getState().deliver({ scan }, '12345678');
    expect(store.getState().lastOutcome).toEqual({ ok: false, message: expect.stringContaining('Could not reach the store node') });
  });

  it('hands lines to a screen that claimed them (no toast: the screen shows its own outcome)', async () => {
    const store = createWedgeStore();
    const scan = vi.fn(async () => reply('x'));
    const sink = vi.fn(async () => {
      throw new NodeApiError('not found', { status: 404, code: 'customer_not_found' });
    });
    const release = store.getState().claim(sink);
    await store.getState().deliver({ scan }, 'DEMO0001');
    expect(sink).toHaveBeenCalledWith('DEMO0001');
    expect(scan).not.toHaveBeenCalled();
    expect(toastStore.getState().toasts).toEqual([]);
    expect(store.getState().lastOutcome).toEqual({ ok: false, message: 'not found' });
    release();
    expect(store.getState().sink).toBeNull();
  });

  it('a released claim does not drop a newer one', () => {
    const store = createWedgeStore();
    const releaseOld = store.getState().claim(async () => reply('a'));
    const newer = async () => reply('b');
    store.getState().claim(newer);
    releaseOld();
    expect(store.getState().sink).toBe(newer);
  });

  it('can be turned off', () => {
    const store = createWedgeStore();
    expect(store.getState().enabled).toBe(true);
    store.getState().setEnabled(false);
    expect(store.getState().enabled).toBe(false);
  });
});
