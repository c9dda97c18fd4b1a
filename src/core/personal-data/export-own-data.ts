import type { CustomerSession } from '../customers/sessions';
import type { Engine } from '../engine';
import { readReport } from '../storage/report-snapshot';
import { type PersonalData, personalDataDocument } from './personal-data-document';

/**
 * A signed-in customer downloads the copy of their data the session's program holds (GDPR Art. 15
 * and 20), all of it, as the back office would hand it to them. Other programs of the same account
 * answer for their own (a session at each). A session ends when the person leaves or is erased, so
 * nobody gone gets here. Read off the node's event loop, as the staff's copy.
 */
export function exportOwnData(engine: Engine, session: CustomerSession): Promise<PersonalData> {
  return readReport(engine, (reads) => personalDataDocument(reads, session.vendorId, session.userId, 'self'));
}
