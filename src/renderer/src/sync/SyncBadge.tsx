import { Badge } from '@mantine/core';
import { useSyncStrings } from './strings';
import { useSyncStatus } from './use-sync-status';

/** On a store paired with central: online, syncing (N pending) or offline (N pending). Nothing when unpaired. */
export function SyncBadge() {
  const status = useSyncStatus();
  const t = useSyncStrings();
  if (!status?.paired) return null;
  if (status.link === 'down') {
    return (
      <Badge color="orange" variant="filled" data-testid="sync-badge" title={t.offlineHint}>
        {t.offline(status.pending)}
      </Badge>
    );
  }
  if (status.pending > 0) return <Badge color="yellow" variant="light" data-testid="sync-badge">{t.syncing(status.pending)}</Badge>;
  return <Badge color="teal" variant="light" data-testid="sync-badge">{t.online}</Badge>;
}
