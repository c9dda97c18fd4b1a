import type { Locator, Page } from 'playwright-core';

// Reflow (WCAG 1.4.10) for the screens-* e2e tests: at 320 CSS px wide (a 1280 px screen at 400%
// zoom) nothing needs scrolling sideways and no text runs past the window's edges. A data table
// may keep its columns and scroll sideways inside its own box (WCAG's exception for tables).

/** What runs past the left or right edge of the window, and whether the page scrolls sideways. */
export function sidewaysOverflow(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const width = window.innerWidth;
    const out: string[] = [];
    /** Inside a box that scrolls sideways itself (and fits the window): reachable by scrolling it. */
    const inSidewaysScroller = (el: Element): boolean => {
      for (let e = el.parentElement; e && e !== document.body; e = e.parentElement) {
        const overflow = getComputedStyle(e).overflowX;
        if (overflow === 'auto' || overflow === 'scroll') {
          const box = e.getBoundingClientRect();
          return box.left >= -1 && box.right <= width + 1;
        }
      }
      return false;
    };
    const scrollWidth = document.scrollingElement?.scrollWidth ?? 0;
    if (scrollWidth > width + 1) out.push(`page scrolls sideways: ${scrollWidth} > ${width}`);
    for (const el of document.querySelectorAll<HTMLElement>('body *')) {
      const box = el.getBoundingClientRect();
      if (box.width === 0 || box.height === 0 || getComputedStyle(el).visibility === 'hidden') continue;
      // Text and controls: a leaf with words, or a button or field.
      const leaf = el.children.length === 0 && el.innerText?.trim();
      if (!leaf && !el.matches('button, input, [role="button"], [role="radio"]')) continue;
      if (el.closest('[aria-hidden="true"]')) continue;
      if (inSidewaysScroller(el)) continue;
      if (box.left < -1 || box.right > width + 1) out.push(`${el.tagName.toLowerCase()} "${(el.innerText || el.getAttribute('aria-label') || '').trim().slice(0, 40)}" [${Math.round(box.left)}–${Math.round(box.right)}]`);
    }
    return out;
  });
}

/** Whether the element is wholly inside the window sideways (not cut off at either edge). */
export async function insideSideways(target: Locator): Promise<boolean> {
  return target.evaluate((el) => {
    const box = el.getBoundingClientRect();
    return box.width > 0 && box.left >= -1 && box.right <= window.innerWidth + 1;
  });
}

/**
 * Text cut inside the window: a word or label that runs past the edge of a box that hides what
 * overflows (a button's label, a badge, a field's label squeezed by its row), not a box that scrolls.
 * Boxes of a pixel or two are visually hidden text, meant for screen readers.
 */
export function cutText(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [];
    for (const el of document.querySelectorAll<HTMLElement>('body *')) {
      const box = el.getBoundingClientRect();
      if (el.children.length > 0 || !el.innerText?.trim() || box.width === 0 || box.height === 0) continue;
      if (el.closest('[aria-hidden="true"]') || getComputedStyle(el).visibility === 'hidden') continue;
      const name = `${el.tagName.toLowerCase()} "${el.innerText.trim().slice(0, 40)}"`;
      for (let up: HTMLElement | null = el; up && up !== document.body; up = up.parentElement) {
        const style = getComputedStyle(up);
        if (style.overflowX === 'auto' || style.overflowX === 'scroll') break;
        if (style.overflowX !== 'hidden' && style.overflowX !== 'clip') continue;
        const clip = up.getBoundingClientRect();
        if (clip.width <= 2) break;
        if (up.scrollWidth > up.clientWidth + 1 || box.left < clip.left - 1 || box.right > clip.right + 1) out.push(`${name} [${Math.round(box.width)} in ${Math.round(clip.width)}]`);
        break;
      }
    }
    return out;
  });
}
