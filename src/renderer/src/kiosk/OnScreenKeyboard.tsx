import { Button, SimpleGrid, Stack } from '@mantine/core';
import { type MouseEvent, useState } from 'react';
import classes from './KioskScreen.module.css';
import { useKioskStrings } from './strings';
import { startsWord } from '../name-case';

const DIGIT_ROWS = [['1', '2', '3'], ['4', '5', '6'], ['7', '8', '9']];
const LETTER_ROWS = ['1234567890', 'qwertyuiop', 'asdfghjkl@', 'zxcvbnm.-_'];

export interface OnScreenKeyboardProps {
  layout: 'digits' | 'full';
  onKey(char: string): void;
  onBackspace(): void;
  onClear(): void;
  /** For a name: the text typed so far; a letter starting a word comes as a capital ("Mia", not "mia"). */
  capitalize?: { text: string };
}

/** Keeps the focus (and the caret) in the field being typed into when a key is touched or clicked. */
const keepFocus = (event: MouseEvent) => event.preventDefault();

/**
 * A touch keyboard for kiosks without a physical one (the fields use inputMode="none" so a tablet's
 * own keyboard does not cover the screen). Keys are big (≥ 56 px) and out of the Tab order: a keyboard
 * user types into the field directly.
 */
export function OnScreenKeyboard({ layout, onKey, onBackspace, onClear, capitalize }: OnScreenKeyboardProps) {
  const t = useKioskStrings();
  // ABC/abc, once touched, wins; until then a name's words start with a capital by themselves: a
  // customer typing their name on a touch screen does not look for a shift key (phones capitalise for them).
  const [shift, setShift] = useState<boolean | null>(null);
  const upper = shift ?? (capitalize !== undefined && startsWord(capitalize.text));
  const key = (label: string, onPress: () => void, ariaLabel?: string, extra?: { color?: string; variant?: string }) => (
    <Button
      key={ariaLabel ?? label}
      size="xl"
      className={classes.key}
      px={0}
      variant={extra?.variant ?? 'default'}
      color={extra?.color}
      tabIndex={-1}
      aria-label={ariaLabel ?? label}
      onMouseDown={keepFocus}
      onClick={onPress}
      classNames={{ label: classes.keyLabel }}
    >
      {label}
    </Button>
  );

  if (layout === 'digits') {
    return (
      <Stack gap="xs" role="group" aria-label={t.keyboard} data-testid="kiosk-keyboard">
        {DIGIT_ROWS.map((row) => (
          <SimpleGrid cols={3} spacing="xs" key={row.join('')}>
            {row.map((d) => key(d, () => onKey(d)))}
          </SimpleGrid>
        ))}
        <SimpleGrid cols={3} spacing="xs">
          {key(t.clear, onClear, t.clear, { variant: 'light', color: 'gray' })}
          {key('0', () => onKey('0'))}
          {key('⌫', onBackspace, t.backspace, { variant: 'light', color: 'gray' })}
        </SimpleGrid>
      </Stack>
    );
  }

  return (
    <Stack gap={6} role="group" aria-label={t.keyboard} data-testid="kiosk-keyboard">
      {/* 4 px apart on a narrow screen (320 px), so each of ten keys is 24 px wide or more (KioskScreen.module.css). */}
      {LETTER_ROWS.map((row) => (
        <SimpleGrid cols={10} spacing={{ base: 4, xs: 6 }} key={row}>
          {[...row].map((c) => {
            const char = upper ? c.toUpperCase() : c;
            return key(char, () => onKey(char));
          })}
        </SimpleGrid>
      ))}
      {/* Two rows of three on a narrow screen (400% zoom: 320 px), where six cut "Clear" and ".com". */}
      <SimpleGrid cols={{ base: 3, xs: 6 }} spacing={6}>
        {key(upper ? 'abc' : 'ABC', () => setShift(!upper), upper ? 'abc' : 'ABC', { variant: upper ? 'filled' : 'light', color: 'gray' })}
        {key('+', () => onKey('+'))}
        {key('␣', () => onKey(' '), t.space)}
        {key('.com', () => onKey('.com'))}
        {key(t.clear, onClear, t.clear, { variant: 'light', color: 'gray' })}
        {key('⌫', onBackspace, t.backspace, { variant: 'light', color: 'gray' })}
      </SimpleGrid>
    </Stack>
  );
}
