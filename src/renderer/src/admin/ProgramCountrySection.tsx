import { Button, Group, Paper, Text, TextInput, Title } from '@mantine/core';
import { type ReactNode, useEffect, useState } from 'react';
import { useLanguage } from '../i18n/language-store';
import { type FieldProblem, invalidProps } from './a11y';
import { adminStore } from './admin-store';
import { rememberProgramCountry } from './program-country';
import type { Say } from './ProgramEditRows';
import { useAdminStrings } from './strings';

/** A country's name in the screen's language ("Ecuador"); the code itself when the browser has no name for it. */
function countryName(code: string, language: string): string {
  try {
    return new Intl.DisplayNames([language], { type: 'region' }).of(code) ?? code;
  } catch {
    return code;
  }
}

/**
 * The program's country, set at `punchcard init` and changed here: what it decides is said beside
 * it, since a merchant changes it rarely and must know that saved phones and stores keep theirs.
 */
export function ProgramCountrySection({ country, editable, say, outcome, problem }: { country: string; editable: boolean; say: Say; outcome: ReactNode; problem: FieldProblem | null }) {
  const t = useAdminStrings();
  const language = useLanguage();
  const [code, setCode] = useState(country);
  useEffect(() => setCode(country), [country]);
  const save = () =>
    void say(
      adminStore
        .getState()
        .api()
        .saveCountry(code)
        .then((saved) => rememberProgramCountry(saved.country)),
      'country',
    );
  return (
    <Paper withBorder p="md">
      <Title order={2} size="h4">{t.programCountryTitle}</Title>
      <Text data-testid="program-country-now">{t.programCountryNow(countryName(country, language), country)}</Text>
      <Text size="sm" c="dimmed">{t.programCountryEffects}</Text>
      {editable && (
        <Group align="end" mt="xs">
          <TextInput label={t.programCountryCode} description={t.countryHint} maxLength={2} w={200} value={code} onChange={(e) => setCode(e.currentTarget.value.toUpperCase())} {...invalidProps(problem, 'country')} />
          <Button disabled={code.trim() === '' || code === country} onClick={save}>
            {t.save}
          </Button>
        </Group>
      )}
      {outcome}
    </Paper>
  );
}
