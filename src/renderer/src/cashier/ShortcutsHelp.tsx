import { Group, Kbd, Modal, Table } from '@mantine/core';
import { useCashier, useCashierUi } from './context';
import { comboLabel, SHORTCUT_LIST } from './shortcuts';
import { useCashierStrings } from './strings';

/** The list of cashier shortcuts (?). */
export function ShortcutsHelp() {
  const t = useCashierStrings();
  const cashier = useCashier();
  const open = useCashierUi((s) => s.dialog === 'help');
  return (
    <Modal opened={open} onClose={() => cashier.ui.getState().show(null)} title={t.shortcutsTitle} size="md">
      <Table aria-label={t.shortcutsTitle} verticalSpacing="xs">
        <Table.Tbody>
          {SHORTCUT_LIST.map((s) => (
            <Table.Tr key={s.id} data-testid={`shortcut-${s.id}`}>
              <Table.Td w={140} data-testid="shortcut-keys">
                <Group gap={4} wrap="nowrap">
                  {s.keys.map((combo) => {
                    const label = comboLabel(combo, t.keyName);
                    return <Kbd key={label}>{label}</Kbd>;
                  })}
                </Group>
              </Table.Td>
              <Table.Td>{t.shortcut(s.id)}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Modal>
  );
}
