import { Alert, Box, Button, Fieldset, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { errorMessage } from '../api/client';
import { adminStore } from './admin-store';
import { usePersonalDataStrings } from './personal-data-strings';
import { saveFile } from './save-file';

/** A member's copy of the data the program holds about them, as the node writes it (GET …/personal-data), saved as a file. */
export function PersonalDataDownload({ customerId }: { customerId: number }) {
  const t = usePersonalDataStrings();
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const download = async () => {
    setBusy(true);
    setDone(null);
    setError(null);
    try {
      const file = await adminStore.getState().api().customerPersonalData(customerId);
      const name = file.name ?? `personal-data-${customerId}.json`;
      saveFile(file.blob, name);
      setDone(t.downloaded(name));
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Fieldset legend={t.title} variant="unstyled">
      <Stack gap="xs">
        <Text c="dimmed" size="sm">
          {t.hint}
        </Text>
        <Box>
          <Button variant="default" onClick={() => void download()} loading={busy}>
            {t.download}
          </Button>
        </Box>
        <Box role="status">{done && <Alert color="teal">{done}</Alert>}</Box>
        {error && (
          <Alert color="red" role="alert">
            {error}
          </Alert>
        )}
      </Stack>
    </Fieldset>
  );
}
