import { DEFAULT_THEME } from '@mantine/core';
import { describe, expect, it } from 'vitest';
import { accessiblePalette, contrastRatio, cssVariablesResolver, DIMMED_BACKGROUNDS, DIMMED_TEXT, theme } from '../../src/renderer/src/theme';

// The screens' palettes carry button text at WCAG AA (4.5:1): Mantine's default teal 6 under
// white text is 2.55:1. The e2e (screens-cashier) measures the buttons themselves in Chromium.
describe('screens theme contrast', () => {
  it('computes WCAG ratios (white on black 21:1, Mantine teal 6 under white 2.55:1)', () => {
    expect(contrastRatio('#ffffff', '#000000')).toBeCloseTo(21, 5);
    expect(contrastRatio(DEFAULT_THEME.colors.teal[6], '#ffffff')).toBeCloseTo(2.55, 2);
  });

  it('fills buttons with shade 8, and every palette carries white text on 8 and shade 9 on shades 1 and 2 (light, hovered) at 4.5:1 or more', () => {
    expect(theme.primaryColor).toBe('teal');
    expect(theme.primaryShade).toBe(8);
    const short: string[] = [];
    for (const [name, palette] of Object.entries(theme.colors!)) {
      const p = palette!;
      if (contrastRatio(p[8], '#ffffff') < 4.5) short.push(`${name} 8 under white: ${contrastRatio(p[8], '#ffffff').toFixed(2)}`);
      // The kiosk's page is teal 0: an outline button's text (shade 8) on it.
      if (contrastRatio(p[8], DEFAULT_THEME.colors.teal[0]) < 4.5) short.push(`${name} 8 on teal 0`);
      if (contrastRatio(p[9], p[1]) < 4.5) short.push(`${name} 9 on 1: ${contrastRatio(p[9], p[1]).toFixed(2)}`);
      // Hovered, a light or subtle button's background is shade 2.
      if (contrastRatio(p[9], p[2]) < 4.5) short.push(`${name} 9 on 2 (hover): ${contrastRatio(p[9], p[2]).toFixed(2)}`);
      if (contrastRatio(p[9], '#ffffff') < contrastRatio(p[8], '#ffffff')) short.push(`${name} 9 lighter than 8`);
    }
    expect(short).toEqual([]);
    expect(Object.keys(theme.colors!).sort()).toEqual(Object.keys(DEFAULT_THEME.colors).sort());
  });

  it("dims text at 4.5:1 on white, gray 0, the kiosk's teal 0 and the open queue row's teal 1 (Mantine's gray 6 was 3.3:1 and 2.9:1)", () => {
    expect(contrastRatio(DEFAULT_THEME.colors.gray[6], DEFAULT_THEME.colors.teal[1])).toBeLessThan(3);
    expect(DIMMED_BACKGROUNDS).toContain(DEFAULT_THEME.colors.teal[1]);
    for (const background of DIMMED_BACKGROUNDS) expect(contrastRatio(DIMMED_TEXT, background)).toBeGreaterThanOrEqual(4.5);
    // Still dimmed: lighter than Mantine's gray 7.
    expect(contrastRatio(DIMMED_TEXT, '#ffffff')).toBeLessThan(contrastRatio(DEFAULT_THEME.colors.gray[7], '#ffffff'));
    expect(cssVariablesResolver(theme as never).light['--mantine-color-dimmed']).toBe(DIMMED_TEXT);
  });

  it('keeps shades 0–7 as Mantine has them, and a palette already dark enough as it is', () => {
    const teal = accessiblePalette(DEFAULT_THEME.colors.teal);
    expect(teal.slice(0, 8)).toEqual(DEFAULT_THEME.colors.teal.slice(0, 8));
    expect(accessiblePalette(DEFAULT_THEME.colors.dark)).toEqual(DEFAULT_THEME.colors.dark);
  });
});
