import { Badge, Group } from '@mantine/core';
import type { ReactNode } from 'react';
import { clockIsOff } from '../../../shared/clock-offset';
import { useLanguage } from '../i18n/language-store';
import { useSyncStrings } from './strings';
import { type SyncStatus, useSyncStatus } from './use-sync-status';

/**
 * On a store paired with central: online, syncing (N pending) or offline (N pending), and a warning
 * when this computer's clock is off from central's. Nothing when unpaired.
 */
export function SyncBadge() {
  const status = useSyncStatus();
  if (!status?.paired) return null;
  return (
    <Group gap={6} wrap="nowrap">
      <LinkBadge status={status} />
      <ClockBadge offset={status.clock_offset_seconds ?? null} />
    </Group>
  );
}

function LinkBadge({ status }: { status: SyncStatus }): ReactNode {
  const t = useSyncStrings();
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

function ClockBadge({ offset }: { offset: number | null }): ReactNode {
  const t = useSyncStrings();
  const language = useLanguage();
  if (offset === null || !clockIsOff(offset)) return null;
  return (
    <Badge color="red" variant="filled" data-testid="clock-badge" title={t.clockOffHint}>
      {t.clockOff(howLong(Math.abs(offset), language), offset > 0)}
    </Badge>
  );
}

/** 150 s → "2 minutes", 7,200 → "2 hours", 172,800 → "2 days" (whole units, in the screen's language). */
function howLong(seconds: number, language: string): string {
  const [unit, size] = seconds >= 86_400 ? (['day', 86_400] as const) : seconds >= 3_600 ? (['hour', 3_600] as const) : (['minute', 60] as const);
  return new Intl.NumberFormat(language, { style: 'unit', unit, unitDisplay: 'long', maximumFractionDigits: 0 }).format(Math.round(seconds / size));
}
