import { AppShell, Center, Group, Text, Title } from '@mantine/core';
import { HealthScreen } from './health/HealthScreen';

export function App() {
  const role = window.punchcard?.role;
  return (
    <AppShell header={{ height: 56 }} padding="md">
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between">
          <Title order={3}>Punchcard</Title>
          {role && (
            <Text size="sm" c="dimmed">
              {role} terminal
            </Text>
          )}
        </Group>
      </AppShell.Header>
      <AppShell.Main>
        <Center pt="xl">
          <HealthScreen />
        </Center>
      </AppShell.Main>
    </AppShell>
  );
}
