import { Badge } from '@mantine/core';
import { useEventStreamStatus } from '../events/event-stream';
import { useShellStrings } from './strings';

/** Live / Connecting / Offline: the state of the store's event stream. */
export function ConnectionBadge() {
  const status = useEventStreamStatus();
  const t = useShellStrings();
  if (status === 'open') return <Badge color="green" variant="light" data-testid="connection">{t.live}</Badge>;
  if (status === 'offline') return <Badge color="red" variant="filled" data-testid="connection">{t.offline}</Badge>;
  return <Badge color="gray" variant="light" data-testid="connection">{t.connecting}</Badge>;
}
