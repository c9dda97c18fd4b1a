import { Text } from '@mantine/core';

/** Placeholder: the cashier screen (queue, customer panel, orders, close) is being built. */
export function CashierScreen() {
  return <Text>Cashier</Text>;
}
