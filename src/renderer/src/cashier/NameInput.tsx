import { TextInput, type TextInputProps } from '@mantine/core';
import { type ChangeEvent, useRef } from 'react';
import { typedInName } from '../name-case';

type NameInputProps = Omit<TextInputProps, 'value' | 'onChange'> & { value: string; onValue(value: string): void };

/**
 * A name box at the counter, typed as the kiosk types names (name-case): each word starts with a
 * capital by itself, until the cashier types a capital themselves (then their typing is kept as is).
 */
export function NameInput({ value, onValue, ...props }: NameInputProps) {
  const ownCase = useRef(false);
  function change(event: ChangeEvent<HTMLInputElement>) {
    const input = event.currentTarget;
    const caret = input.selectionStart;
    const typed = typedInName(value, input.value, caret);
    if (typed.ownCapital) ownCase.current = true;
    const next = ownCase.current ? input.value : typed.value;
    // Set in the box itself, so React finds it already there and the caret stays where it was.
    if (next !== input.value) {
      input.value = next;
      if (caret !== null) input.setSelectionRange(caret, caret);
    }
    onValue(next);
  }
  return <TextInput {...props} value={value} onChange={change} />;
}
