import { Alert, Box, Button, Fieldset, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { errorMessage } from '../api/client';
import { adminStore } from './admin-store';
import { useMemberExportStrings } from './member-export-strings';
import { saveFile } from './save-file';

/** Every member of the program as the node writes them (GET /backoffice/customers/export.csv), saved as a file. Owners only: the screen shows it to them alone. */
export function MemberExportDownload() {
  const t = useMemberExportStrings();
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const download = async () => {
    setBusy(true);
    setDone(null);
    setError(null);
    try {
      const file = await adminStore.getState().api().membersFile();
      const name = file.name ?? 'members.csv';
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
