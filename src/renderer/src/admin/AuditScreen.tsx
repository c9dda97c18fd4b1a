import { Alert, Button, Code, Group, Select, Stack, Table, Text } from '@mantine/core';
import { stackedTable, TableScroll } from './a11y';
import { useMemo, useState } from 'react';
import type { AuditEntry } from './admin-api';
import { type AuditCurrency, auditValueWriter } from './audit-value-words';
import { useProgramCountry } from './program-country';
import { adminStore } from './admin-store';
import { auditChanges, auditVerb } from './audit-lines';
import { auditFieldWord } from './audit-field-words';
import { useLanguage } from '../i18n/language-store';
import { formatDateTime } from './format';
import { useAdminStrings } from './strings';
import { useLoad } from './use-load';

const PAGE = 25;

/** The kinds of object the back office records changes to (the audit's `object_type`). */
const OBJECT_TYPES = ['staff', 'store', 'api_key', 'customer', 'webhook', 'program', 'currency', 'earning_rule', 'reward', 'tier', 'content', 'sync_exception', 'payment_exception'] as const;
type ObjectType = (typeof OBJECT_TYPES)[number];
const EVERYTHING = 'all';

/**
 * A change field by field, "city: Springfield → Quito"; a field a creation set (or a removal took)
 * without an arrow. Wrapped: a long value never widens the page past the window; at least 15em wide
 * (the table scrolls in its box), not squeezed into a column of a few letters at 320 px.
 */
function ChangeLines({ entry, currencies }: { entry: AuditEntry; currencies: ReadonlyMap<string, AuditCurrency> }) {
  const t = useAdminStrings();
  const language = useLanguage();
  const { before, after } = entry;
  // Money in the entry's currency and codes in words (audit-value-words.ts); what it does not know, as recorded.
  const changes = auditChanges(before, after, auditValueWriter(entry, currencies, language));
  if (changes.length === 0) return <Text size="sm">{t.auditNothingChanged}</Text>;
  return (
    <Code block miw="15em" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
      {changes
        .map(({ field, before: from, after: to }) => {
          const label = field === '' ? '' : `${auditFieldWord(field, language)}: `;
          if (before === null || from === null) return `${label}${to ?? '—'}`;
          if (after === null) return `${label}${from}`;
          return `${label}${from} → ${to ?? '—'}`;
        })
        .join('\n')}
    </Code>
  );
}

/** Every back-office change, newest first, paged by the node; or the changes to one kind of object. */
export function AuditScreen() {
  const t = useAdminStrings();
  const [offset, setOffset] = useState(0);
  const [objectType, setObjectType] = useState<string>(EVERYTHING);
  const page = useLoad(() => adminStore.getState().api().audit(offset, PAGE, objectType === EVERYTHING ? null : objectType), [offset, objectType]);
  // The program's currencies name the entries' amounts (an entry records a currency by its id); the
  // page shows amounts as recorded until they are known, or if they cannot be read.
  const program = useLoad(() => adminStore.getState().api().program(), []);
  const currencies = useMemo(() => new Map((program.data?.currencies ?? []).map((c) => [c.id, { code: c.code, name: c.name }])), [program.data]);
  // Amounts follow the program's country (formatAmount): render again once it is known.
  useProgramCountry();
  const filter = (
    <Select
      label={t.auditFilter}
      w={260}
      maw="100%"
      allowDeselect={false}
      value={objectType}
      onChange={(value) => {
        setObjectType(value ?? EVERYTHING);
        setOffset(0);
      }}
      data={[{ value: EVERYTHING, label: t.auditEverything }, ...OBJECT_TYPES.map((type: ObjectType) => ({ value: type, label: t[`objectType_${type}`] }))]}
    />
  );
  if (page.error)
    return (
      <Stack>
        {filter}
        <Alert color="red" role="alert">
          {page.error}
        </Alert>
      </Stack>
    );
  if (!page.data) return <Text>{t.loading}</Text>;
  const { items, total } = page.data;
  return (
    <Stack>
      {filter}
      <TableScroll>
        {/* On a phone each entry stacks into labelled lines: the change was a swipe away, in a column off screen. */}
        <Table aria-label={t.auditTable} striped className={stackedTable}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t.when}</Table.Th>
              <Table.Th>{t.who}</Table.Th>
              <Table.Th>{t.what}</Table.Th>
              <Table.Th>{t.object}</Table.Th>
              <Table.Th>{t.change}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {items.map((entry) => (
              <Table.Tr key={entry.id}>
                <Table.Td data-label={t.when} style={{ whiteSpace: 'nowrap' }}>{formatDateTime(entry.date_created)}</Table.Td>
                <Table.Td data-label={t.who}>{entry.actor}</Table.Td>
                <Table.Td data-label={t.what}>
                  {/* In words; the action's code under it, for support and for an action without words yet. */}
                  <Text size="sm" data-audit-words>
                    {t.auditAction(auditVerb(entry.action), entry.action)}
                  </Text>
                  <Text size="xs" c="dimmed">
                    {entry.action}
                  </Text>
                </Table.Td>
                <Table.Td data-label={t.object}>
                  {t.auditObject(entry.object_type)} {entry.object_id}
                </Table.Td>
                <Table.Td data-label={t.change}>
                  <ChangeLines entry={entry} currencies={currencies} />
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </TableScroll>
      <Group>
        <Button variant="light" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>
          {t.previous}
        </Button>
        <Text>{t.pageOf(total === 0 ? 0 : offset + 1, offset + items.length, total)}</Text>
        <Button variant="light" disabled={offset + PAGE >= total} onClick={() => setOffset(offset + PAGE)}>
          {t.next}
        </Button>
      </Group>
    </Stack>
  );
}
