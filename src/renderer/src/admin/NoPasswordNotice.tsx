import { Alert, Button, Group, PasswordInput, Text } from '@mantine/core';
import { useState } from 'react';
import { refusalText } from './node-refusal';
import { adminStore, useAdmin } from './admin-store';
import { useAdminStrings } from './strings';

/**
 * Above every back-office screen while the signed-in owner has no password (signed in by the
 * one-time link `punchcard init` prints): the link works once, so without a password the session
 * ending locks them out. Sets the first password in place; says so once it is set.
 */
export function NoPasswordNotice() {
  const t = useAdminStrings();
  const hasPassword = useAdmin((s) => s.staff?.has_password);
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  if (done)
    return (
      <Alert color="teal" mb="md" role="status">
        {t.passwordSet}
      </Alert>
    );
  // Unknown (a session's first answer, before /backoffice/me) or set: nothing to say.
  if (hasPassword !== false) return null;
  return (
    <Alert color="yellow" mb="md" title={t.noPasswordTitle} data-testid="no-password-notice">
      <Text size="sm">{t.noPasswordBody}</Text>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          setError(null);
          adminStore
            .getState()
            .api()
            .setFirstPassword(password)
            .then(() => {
              setDone(true);
              void adminStore.getState().refresh();
            })
            .catch((e: unknown) => setError(refusalText(e)));
        }}
      >
        <Group align="end" mt="xs">
          <PasswordInput label={t.newPassword} autoComplete="new-password" value={password} onChange={(e) => setPassword(e.currentTarget.value)} required w={280} maw="100%" error={error ?? undefined} />
          <Button type="submit">{t.setPassword}</Button>
        </Group>
      </form>
    </Alert>
  );
}
