import type { Locator } from 'playwright-core';

// WCAG contrast as Chromium paints it, for the screens-* e2e tests: text's computed color against
// the first opaque background behind it (semi-transparent layers blended in), and a control's border
// against the backgrounds on both sides of it.

export interface ButtonContrast {
  name: string;
  ratio: number;
  color: string;
  background: string;
}

/** Text contrast of the elements matching `selector` inside `root` (and `root` itself when it matches); `controls`: enabled buttons only. */
export function textContrasts(root: Locator, selector: string, controls = false): Promise<ButtonContrast[]> {
  return root.evaluate(
    (element, { selector, controls }) => {
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
      const found = [...(element.matches(selector) ? [element] : []), ...element.querySelectorAll(selector)] as HTMLElement[];
      for (const el of found) {
        const text = el.innerText.trim();
        const box = el.getBoundingClientRect();
        if (!text || box.width === 0 || box.height === 0) continue;
        // Inactive controls are exempt (WCAG 1.4.3).
        if (controls && el.matches(':disabled, [data-disabled], [aria-disabled="true"]')) continue;
        const background = backgroundOf(el);
        const color = over(parse(getComputedStyle(el).color), background);
        const [light, dark] = [luminance(color), luminance(background)].sort((a, b) => b - a);
        out.push({ name: text.replace(/\s+/g, ' '), ratio: Math.round(((light! + 0.05) / (dark! + 0.05)) * 100) / 100, color: `rgb(${color.slice(0, 3).map(Math.round).join(',')})`, background: `rgb(${background.slice(0, 3).map(Math.round).join(',')})` });
      }
      return out;
    },
    { selector, controls },
  );
}

/** Every enabled button with text inside `root`, with the contrast of its text. */
export function buttonContrasts(root: Locator): Promise<ButtonContrast[]> {
  return textContrasts(root, 'button, [role="button"]', true);
}

/** The buttons below 4.5:1 (WCAG AA for text). */
export async function lowContrastButtons(root: Locator): Promise<ButtonContrast[]> {
  return (await buttonContrasts(root)).filter((b) => b.ratio < 4.5);
}

/**
 * The contrast of the element's top border against what lies on each side of it (its own
 * background inside, its parent's outside): the lower of the two (WCAG 1.4.11 asks 3:1).
 */
export function borderContrast(target: Locator): Promise<{ ratio: number; border: string; width: string }> {
  return target.evaluate((el) => {
    type Rgba = [number, number, number, number];
    const parse = (css: string): Rgba => {
      const [r, g, b, a] = css.match(/rgba?\(([^)]+)\)/)![1]!.split(/[\s,/]+/).filter(Boolean).map(Number);
      return [r!, g!, b!, a ?? 1];
    };
    const over = (top: Rgba, bottom: Rgba): Rgba => [0, 1, 2].map((i) => top[i]! * top[3] + bottom[i]! * (1 - top[3])).concat(1) as Rgba;
    const luminance = (c: Rgba) => {
      const [r, g, b] = c.slice(0, 3).map((v) => ((v / 255) <= 0.03928 ? v / 255 / 12.92 : ((v / 255 + 0.055) / 1.055) ** 2.4));
      return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
    };
    const backgroundOf = (from: Element | null): Rgba => {
      const layers: Rgba[] = [];
      for (let e = from; e; e = e.parentElement) {
        const color = parse(getComputedStyle(e).backgroundColor);
        if (color[3] > 0) layers.push(color);
        if (color[3] >= 1) break;
      }
      return layers.reverse().reduce<Rgba>((below, layer) => over(layer, below), [255, 255, 255, 1]);
    };
    const ratio = (a: Rgba, b: Rgba) => {
      const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x);
      return (light! + 0.05) / (dark! + 0.05);
    };
    const style = getComputedStyle(el);
    const outside = backgroundOf(el.parentElement);
    const border = over(parse(style.borderTopColor), outside);
    const lowest = Math.min(ratio(border, backgroundOf(el)), ratio(border, outside));
    return { ratio: Math.round(lowest * 100) / 100, border: style.borderTopColor, width: style.borderTopWidth };
  });
}
