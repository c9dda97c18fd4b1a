import { Button, Card, PasswordInput, Stack, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { sessionStore, useSession } from '../session/session-store';

/** Placeholder login: a store key typed in a browser. */
export function LoginScreen() {
  const phase = useSession((s) => s.phase);
  const error = useSession((s) => s.error);
  const [key, setKey] = useState('');
  return (
    <Card withBorder maw={480} mx="auto" mt="xl">
      <Stack>
        <Title order={2}>Sign in</Title>
        {error && <Text c="red" role="alert">{error}</Text>}
        <PasswordInput label="Store key" value={key} onChange={(e) => setKey(e.currentTarget.value)} />
        <Button loading={phase === 'checking'} onClick={() => void sessionStore().getState().signIn(key)}>
          Sign in
        </Button>
      </Stack>
    </Card>
  );
}
