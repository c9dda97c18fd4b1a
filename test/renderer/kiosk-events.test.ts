import { describe, expect, it } from 'vitest';
import type { StoreEventMessage } from '../../src/renderer/src/events/event-stream';
import { kioskGreets, kioskRetries } from '../../src/renderer/src/kiosk/kiosk-events';

// Which store events a kiosk acts on (issue 17, item 5): scans of kiosk-station scanners and of
// unassigned ones (serving every screen) are greeted, counter-station scans never, and check-ins
// made anywhere but at a scanner of the node never.

const event = (fields: Partial<StoreEventMessage>): StoreEventMessage => ({ type: 'session.opened', vendor_id: 1, store_id: 2, pos_session_id: 3, at: 0, ...fields });

describe('kiosk and the event stream', () => {
  it('greets sessions opened or touched by kiosk-station and unassigned scanners only', () => {
    for (const type of ['session.opened', 'session.updated']) {
      expect(kioskGreets(event({ type, by: 'scanner', station: 'kiosk' }))).toBe(true);
      expect(kioskGreets(event({ type, by: 'scanner' }))).toBe(true);
      expect(kioskGreets(event({ type, by: 'scanner', station: 'counter' }))).toBe(false);
    }
    for (const by of ['cashier', 'kiosk', 'integration', 'app', undefined]) expect(kioskGreets(event(by ? { by } : {}))).toBe(false);
    expect(kioskGreets(event({ type: 'session.closed', by: 'scanner', station: 'kiosk' }))).toBe(false);
  });

  it('answers unreadable scans of its own scanners, not of the counter’s', () => {
    expect(kioskRetries(event({ type: 'scan.rejected', by: 'scanner', station: 'kiosk', reason: 'customer_not_found' }))).toBe(true);
    expect(kioskRetries(event({ type: 'scan.rejected', by: 'scanner', reason: 'unreadable_scan' }))).toBe(true);
    expect(kioskRetries(event({ type: 'scan.rejected', by: 'scanner', station: 'counter', reason: 'customer_not_found' }))).toBe(false);
    expect(kioskRetries(event({ type: 'session.opened', by: 'scanner', station: 'kiosk' }))).toBe(false);
  });
});
