import { adminStore } from './admin-store';
import { FileDownload } from './FileDownload';
import { usePersonalDataStrings } from './personal-data-strings';

/** A member's copy of the data the program holds about them, as the node writes it (GET …/personal-data), saved as a file. */
export function PersonalDataDownload({ customerId }: { customerId: number }) {
  const t = usePersonalDataStrings();
  return <FileDownload texts={t} fallbackName={`personal-data-${customerId}.json`} load={() => adminStore.getState().api().customerPersonalData(customerId)} />;
}
