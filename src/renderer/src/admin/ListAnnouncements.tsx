import { Alert, Box, Text } from '@mantine/core';

/**
 * What a list says around its rows: a live region always on the page (what the last action did,
 * else how many rows the list holds), so a change is read out; a refusal and a failed load as alerts.
 */
export function ListAnnouncements({ done, count, refusal, loadError }: { done: string | null; count: string | null; refusal: string | null; loadError: string | null }) {
  return (
    <>
      <Box role="status">
        {done !== null && <Alert color="teal">{done}</Alert>}
        {done === null && refusal === null && count !== null && <Text size="sm">{count}</Text>}
      </Box>
      {refusal !== null && (
        <Alert color="red" role="alert">
          {refusal}
        </Alert>
      )}
      {loadError && (
        <Alert color="red" role="alert">
          {loadError}
        </Alert>
      )}
    </>
  );
}
