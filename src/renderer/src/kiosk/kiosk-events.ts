import type { StoreEventMessage } from '../events/event-stream';

// Which events of the store's stream a kiosk acts on. A scan read by a scanner the node reads arrives
// as a session opened (or, for someone already checked in, updated) `by: scanner`, with the station
// that scanner serves: a kiosk greets kiosk-station scanners and unassigned ones (which serve every
// screen), never counter-station ones. Check-ins at the counter, other screens or apps are not
// greeted; the kiosk's own check-ins are shown from their replies.

/** True when the kiosk should greet the session of this event. */
export function kioskGreets(event: StoreEventMessage): boolean {
  return (event.type === 'session.opened' || event.type === 'session.updated') && event.by === 'scanner' && event.station !== 'counter';
}

/** True when a scan the node could not check in is the kiosk's to answer (its retry screen). */
export function kioskRetries(event: StoreEventMessage): boolean {
  return event.type === 'scan.rejected' && event.station !== 'counter';
}
