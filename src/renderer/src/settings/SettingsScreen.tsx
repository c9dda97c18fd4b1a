import { Center } from '@mantine/core';
import { HealthScreen } from '../health/HealthScreen';

/** Placeholder: settings (scanners, node, language, pairing) are being built. */
export function SettingsScreen() {
  return (
    <Center pt="xl">
      <HealthScreen />
    </Center>
  );
}
