import { Table } from '@mantine/core';
import type { ReactNode } from 'react';

/** One labelled row of a vertical table (Settings' cards). */
export function TableField({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Table.Tr>
      <Table.Th w={170}>{label}</Table.Th>
      <Table.Td>{children}</Table.Td>
    </Table.Tr>
  );
}
