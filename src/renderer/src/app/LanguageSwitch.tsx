import { SegmentedControl } from '@mantine/core';
import { isLanguage, languageStore, useLanguage } from '../i18n/language-store';
import { useShellStrings } from './strings';

/** EN | ES: large enough to tap, reachable by Tab and arrow keys. */
export function LanguageSwitch() {
  const language = useLanguage();
  const t = useShellStrings();
  return (
    <SegmentedControl
      aria-label={t.language}
      size="sm"
      value={language}
      onChange={(value) => isLanguage(value) && languageStore.getState().choose(value)}
      data={[
        { value: 'en', label: 'EN' },
        { value: 'es', label: 'ES' },
      ]}
    />
  );
}
