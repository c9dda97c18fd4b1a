import { Text } from '@mantine/core';

/** Placeholder: the kiosk screen (idle, welcome, retry, register) is being built. */
export function KioskScreen() {
  return <Text>Kiosk</Text>;
}
