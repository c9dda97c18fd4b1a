import { NumberInput, type NumberInputProps } from '@mantine/core';
import { useAdminStrings } from './strings';

/**
 * A number field for whole numbers (points, days, thresholds). The decimal key is let through and
 * the field says a fraction is not taken: with decimals turned off, "12.5" dropped the point and
 * became 125 without a word.
 */
export function WholeNumberInput(props: Omit<NumberInputProps, 'allowDecimal'>) {
  const t = useAdminStrings();
  const { value, error } = props;
  const fraction = typeof value === 'number' ? !Number.isInteger(value) : typeof value === 'string' && /[.,]\d/.test(value);
  return <NumberInput {...props} allowDecimal error={error ?? (fraction ? t.wholeNumberOnly : undefined)} />;
}
