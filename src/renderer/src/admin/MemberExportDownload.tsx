import { adminStore } from './admin-store';
import { FileDownload } from './FileDownload';
import { useMemberExportStrings } from './member-export-strings';

/** Every member of the program as the node writes them (GET /backoffice/customers/export.csv), saved as a file. Owners only: the screen shows it to them alone. */
export function MemberExportDownload() {
  const t = useMemberExportStrings();
  return <FileDownload texts={t} fallbackName="members.csv" load={() => adminStore.getState().api().membersFile()} />;
}
