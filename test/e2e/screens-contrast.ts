import type { Locator } from 'playwright-core';

// WCAG contrast of buttons' text as Chromium paints it: the text's computed color against the first
// opaque background behind it (semi-transparent layers blended in), for the screens-* e2e tests.

export interface ButtonContrast {
  name: string;
  ratio: number;
  color: string;
  background: string;
}

/** Every enabled button with text inside `root`, with the contrast of its text. */
export function buttonContrasts(root: Locator): Promise<ButtonContrast[]> {
  return root.evaluate((element) => {
    type Rgba = [number, number, number, number];
    const parse = (css: string): Rgba => {
      const m = css.match(/rgba?\(([^)]+)\)/);
      if (!m) throw new Error(`unparsed color ${css}`);
      const [r, g, b, a] = m[1]!.split(/[\s,/]+/).filter(Boolean).map(Number);
      return [r!, g!, b!, a ?? 1];
    };
    const over = (top: Rgba, bottom: Rgba): Rgba => {
      const a = top[3];
      return [top[0] * a + bottom[0] * (1 - a), top[1] * a + bottom[1] * (1 - a), top[2] * a + bottom[2] * (1 - a), 1];
    };
    const luminance = ([r, g, b]: Rgba) => {
      const c = [r, g, b].map((v) => {
        const s = v / 255;
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * c[0]! + 0.7152 * c[1]! + 0.0722 * c[2]!;
    };
    /** The background behind `el`: its own and its ancestors' colors blended down to the first opaque one (white at the top). */
    const backgroundOf = (el: Element | null): Rgba => {
      const layers: Rgba[] = [];
      for (let e = el; e; e = e.parentElement) {
        const color = parse(getComputedStyle(e).backgroundColor);
        if (color[3] > 0) layers.push(color);
        if (color[3] >= 1) break;
      }
      let result: Rgba = [255, 255, 255, 1];
      for (const layer of layers.reverse()) result = over(layer, result);
      return result;
    };
    const out: Array<{ name: string; ratio: number; color: string; background: string }> = [];
    for (const button of element.querySelectorAll<HTMLElement>('button, [role="button"]')) {
      const text = button.innerText.trim();
      const box = button.getBoundingClientRect();
      if (!text || box.width === 0 || box.height === 0) continue;
      // Inactive controls are exempt (WCAG 1.4.3).
      if (button.matches(':disabled, [data-disabled], [aria-disabled="true"]')) continue;
      const background = backgroundOf(button);
      const color = over(parse(getComputedStyle(button).color), background);
      const [light, dark] = [luminance(color), luminance(background)].sort((a, b) => b - a);
      out.push({ name: text.replace(/\s+/g, ' '), ratio: Math.round(((light! + 0.05) / (dark! + 0.05)) * 100) / 100, color: `rgb(${color.slice(0, 3).map(Math.round).join(',')})`, background: `rgb(${background.slice(0, 3).map(Math.round).join(',')})` });
    }
    return out;
  });
}

/** The buttons below 4.5:1 (WCAG AA for text). */
export async function lowContrastButtons(root: Locator): Promise<ButtonContrast[]> {
  return (await buttonContrasts(root)).filter((b) => b.ratio < 4.5);
}
