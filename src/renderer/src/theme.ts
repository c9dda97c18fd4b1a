import { Alert, type CSSVariablesResolver, createTheme, DEFAULT_THEME, Drawer, type MantineColorsTuple, Modal } from '@mantine/core';

// The screens' theme. Mantine's default shades put white button text on teal 6 at 2.55:1 (red 6
// 3.3:1, orange 2.6:1), under the 4.5:1 WCAG AA asks of text. Buttons fill with shade 8 here
// (primaryShade) and every palette's shades 8 and 9 are darkened just enough: white on 8 (filled,
// outline's text on white and on the kiosk's pale teal) and 9 on 1 and 2 (the light variant's text
// on its background, hovered too; filled buttons' hover) reach the targets below. Shades 0–7 keep
// Mantine's look.

/** White text on a filled button, and an outline's text on a near-white page (the kiosk's teal 0). */
export const FILLED_CONTRAST = 5;
/** The light variant's text (shade 9) on its own background (shade 1; shade 2 hovered). */
export const LIGHT_CONTRAST = 4.6;

function channels(hex: string): [number, number, number] {
  const h = hex.replace('#', '');
  return [0, 2, 4].map((i) => parseInt(h.slice(i, i + 2), 16)) as [number, number, number];
}

function toHex(rgb: readonly number[]): string {
  return `#${rgb.map((c) => Math.round(c).toString(16).padStart(2, '0')).join('')}`;
}

/** Relative luminance (WCAG 2) of "#rrggbb" or [r, g, b] (0–255). */
export function luminance(color: string | readonly number[]): number {
  const [r, g, b] = (typeof color === 'string' ? channels(color) : color).map((c) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}

/** WCAG contrast ratio of two colors (≥ 1). */
export function contrastRatio(a: string | readonly number[], b: string | readonly number[]): number {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (light! + 0.05) / (dark! + 0.05);
}

/** `hex` darkened toward black in small steps until it has `ratio` against `against`. */
function darkenUntil(hex: string, against: string, ratio: number): string {
  let rgb = channels(hex);
  while (contrastRatio(toHex(rgb), against) < ratio) rgb = rgb.map((c) => c * 0.97) as [number, number, number];
  return toHex(rgb);
}

/** A palette whose shades 8 and 9 carry text at AA (see the targets above). */
export function accessiblePalette(palette: MantineColorsTuple): MantineColorsTuple {
  const shade8 = darkenUntil(palette[8], '#ffffff', FILLED_CONTRAST);
  // 9 is at least as dark as 8: the filled hover must not lighten.
  const shade9 = darkenUntil(contrastRatio(palette[9], '#ffffff') >= contrastRatio(shade8, '#ffffff') ? palette[9] : shade8, palette[2], LIGHT_CONTRAST);
  return [...palette.slice(0, 8), shade8, shade9] as unknown as MantineColorsTuple;
}

/** Dimmed text (hints, times, "checked in at") against the palest backgrounds it sits on. */
export const DIMMED_CONTRAST = 4.6;

/**
 * The backgrounds dimmed text sits on: white, gray 0 (queue rows), teal 0 (the kiosk's page) and
 * teal 1 (the light variant: the open queue row).
 */
export const DIMMED_BACKGROUNDS = ['#ffffff', DEFAULT_THEME.colors.gray[0], DEFAULT_THEME.colors.teal[0], DEFAULT_THEME.colors.teal[1]] as const;

/**
 * Mantine dims text with gray 6 (#868e96): 3.3:1 on white, 2.9:1 on the open queue row. Here it is
 * gray 6 darkened until it reads at 4.5:1 on every background of DIMMED_BACKGROUNDS.
 */
export const DIMMED_TEXT = DIMMED_BACKGROUNDS.reduce((color, background) => darkenUntil(color, background, DIMMED_CONTRAST), DEFAULT_THEME.colors.gray[6]);

/**
 * The screens' CSS variables: Mantine's, with the darker dimmed text, and errors (a field's message,
 * the required asterisk) in red 8 (5:1 on white) where Mantine's red 6 was 3.3:1 (light scheme; dark
 * is unused).
 */
export const cssVariablesResolver: CSSVariablesResolver = () => ({ variables: {}, light: { '--mantine-color-dimmed': DIMMED_TEXT, '--mantine-color-error': 'var(--mantine-color-red-8)' }, dark: {} });

const colors = Object.fromEntries(Object.entries(DEFAULT_THEME.colors).map(([name, palette]) => [name, accessiblePalette(palette)]));

// A screen reader's or a vestibular user's "reduce motion" turns Mantine's transitions off (dialogs, menus fade in otherwise).
export const theme = createTheme({ primaryColor: 'teal', primaryShade: 8, defaultRadius: 'md', colors, respectReducedMotion: true });

/**
 * The theme in a language: Mantine's close buttons (dialogs, drawers, alerts) have only an ✕ and
 * no name a screen reader can say; here they are named `closeLabel` ("Close", "Cerrar"). A dialog
 * that names its own (the kiosk's staff lock) keeps it.
 */
export function themeIn(closeLabel: string) {
  return createTheme({
    ...theme,
    components: {
      Modal: Modal.extend({ defaultProps: { closeButtonProps: { 'aria-label': closeLabel } } }),
      Drawer: Drawer.extend({ defaultProps: { closeButtonProps: { 'aria-label': closeLabel } } }),
      Alert: Alert.extend({ defaultProps: { closeButtonLabel: closeLabel } }),
    },
  });
}
