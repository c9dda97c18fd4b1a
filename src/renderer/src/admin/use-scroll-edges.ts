import { useEffect, useState } from 'react';

/** Whether a box that scrolls sideways has more to show to its left and to its right. */
export interface ScrollEdges {
  left: boolean;
  right: boolean;
}

const NONE: ScrollEdges = { left: false, right: false };

/**
 * Follows `box`'s sideways scroll: on a phone a scrollbar shows only while the finger moves, so a
 * table cut at the screen's edge looked whole. Read again on scroll and when the box or its content
 * changes size (rows loaded, the window turned); a pixel of slack absorbs sub-pixel widths.
 */
export function useScrollEdges(box: HTMLElement | null): ScrollEdges {
  const [edges, setEdges] = useState<ScrollEdges>(NONE);
  useEffect(() => {
    if (!box) return;
    const read = () => {
      const left = box.scrollLeft > 1;
      const right = box.scrollLeft + box.clientWidth < box.scrollWidth - 1;
      setEdges((was) => (was.left === left && was.right === right ? was : { left, right }));
    };
    read();
    box.addEventListener('scroll', read, { passive: true });
    const sizes = new ResizeObserver(read);
    sizes.observe(box);
    for (const child of Array.from(box.children)) sizes.observe(child);
    // A table replaced (another page of rows) is a new child to watch.
    const children = new MutationObserver(() => {
      for (const child of Array.from(box.children)) sizes.observe(child);
      read();
    });
    children.observe(box, { childList: true });
    return () => {
      box.removeEventListener('scroll', read);
      sizes.disconnect();
      children.disconnect();
    };
  }, [box]);
  return edges;
}
