import { NumberInput, type NumberInputProps } from '@mantine/core';
import { decimalMark } from '../format';
import { useLanguage } from '../i18n/language-store';
import { useProgramCountry } from './program-country';

/**
 * A box for an amount in `currency` (null: points), written with the decimal mark its amounts are
 * shown with: a Spanish back office in Spain or Ecuador shows a typed "12,50" as typed (Mantine's
 * default turned the comma into "12.50"), and a "." typed there becomes ",". The value handed to
 * onChange is unchanged: a number, or the text being typed with "." as its mark.
 */
export function AmountInput({ currency, ...props }: NumberInputProps & { currency: string | null }) {
  const language = useLanguage();
  const country = useProgramCountry();
  return <NumberInput {...props} decimalSeparator={decimalMark(language, currency, country)} />;
}
