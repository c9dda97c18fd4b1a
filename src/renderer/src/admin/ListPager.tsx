import { Button, Group, Text } from '@mantine/core';

/** Previous / "1–25 of 40" / Next under a paged back-office list (as the audit log pages). */
export function ListPager({ offset, shown, total, pageSize, onOffset, words }: {
  offset: number;
  shown: number;
  total: number;
  pageSize: number;
  onOffset: (offset: number) => void;
  words: { previous: string; next: string; pageOf: (from: number, to: number, total: number) => string };
}) {
  // One page holds them all: no control to offer.
  if (offset === 0 && total <= pageSize) return null;
  return (
    <Group>
      <Button variant="light" disabled={offset === 0} onClick={() => onOffset(Math.max(0, offset - pageSize))}>
        {words.previous}
      </Button>
      <Text>{words.pageOf(total === 0 ? 0 : offset + 1, offset + shown, total)}</Text>
      <Button variant="light" disabled={offset + pageSize >= total} onClick={() => onOffset(offset + pageSize)}>
        {words.next}
      </Button>
    </Group>
  );
}
