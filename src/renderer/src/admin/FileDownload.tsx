import { Alert, Box, Button, Fieldset, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { errorMessage, type NodeFile } from '../api/client';
import { saveFile } from './save-file';

/** What a download says: its heading, what the file holds, the button, and the note once saved. */
export interface FileDownloadTexts {
  title: string;
  hint: string;
  download: string;
  downloaded(name: string): string;
}

interface FileDownloadProps {
  texts: FileDownloadTexts;
  /** The file's name when the node gives none. */
  fallbackName: string;
  load(): Promise<NodeFile>;
}

/** A file the node writes (a member's data, the members list), fetched on a click and saved; what went wrong said beside it. */
export function FileDownload({ texts, fallbackName, load }: FileDownloadProps) {
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const download = async () => {
    setBusy(true);
    setDone(null);
    setError(null);
    try {
      const file = await load();
      const name = file.name ?? fallbackName;
      saveFile(file.blob, name);
      setDone(texts.downloaded(name));
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Fieldset legend={texts.title} variant="unstyled">
      <Stack gap="xs">
        <Text c="dimmed" size="sm">
          {texts.hint}
        </Text>
        <Box>
          <Button variant="default" onClick={() => void download()} loading={busy}>
            {texts.download}
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
