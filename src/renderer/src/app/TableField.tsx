import { Table } from '@mantine/core';
import type { ReactNode } from 'react';

/**
 * One labelled row of a vertical table (Settings' cards). The label's column is 170 px, at most 40%
 * of a narrow card (at 320 px it left the values a few letters a line), and a long value breaks
 * inside its cell instead of running past the table's edge.
 */
export function TableField({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Table.Tr>
      <Table.Th w="min(170px, 40%)">{label}</Table.Th>
      <Table.Td style={{ overflowWrap: 'anywhere' }}>{children}</Table.Td>
    </Table.Tr>
  );
}
