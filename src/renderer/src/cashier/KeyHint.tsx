import { Kbd } from '@mantine/core';
import type { ReactNode } from 'react';

/** The key of a button's shortcut, shown on it; hidden from screen readers (the button carries aria-keyshortcuts), so its name stays "Place order". */
export function KeyHint({ children }: { children: ReactNode }) {
  return (
    <Kbd size="xs" aria-hidden>
      {children}
    </Kbd>
  );
}
