import { Button, Group, Paper, Select, Text, Title } from '@mantine/core';
import { type ReactNode, useEffect, useState } from 'react';
import { LANGUAGES as PROGRAM_LANGUAGES } from '../../../shared/languages';
import { useLanguage } from '../i18n/language-store';
import { type FieldProblem, invalidProps } from './a11y';
import { adminStore } from './admin-store';
import { languageName } from './format';
import type { Say } from './ProgramEditRows';
import { useAdminStrings } from './strings';

/**
 * The program's language, set at `punchcard init` (from its country unless told) and changed here:
 * what customers who chose none are written to in, and what the screens open in.
 */
export function ProgramLanguageSection({ language, editable, say, outcome, problem }: { language: string; editable: boolean; say: Say; outcome: ReactNode; problem: FieldProblem | null }) {
  const t = useAdminStrings();
  const screen = useLanguage();
  const [code, setCode] = useState(language);
  useEffect(() => setCode(language), [language]);
  const save = () => void say(adminStore.getState().api().saveLanguage(code), 'language');
  return (
    <Paper withBorder p="md">
      <Title order={2} size="h4">{t.programLanguageTitle}</Title>
      <Text data-testid="program-language-now">{t.programLanguageNow(languageName(language, screen))}</Text>
      <Text size="sm" c="dimmed">{t.programLanguageEffects}</Text>
      {editable && (
        <Group align="end" mt="xs">
          <Select
            label={t.programLanguageLabel}
            w={200}
            allowDeselect={false}
            // Each named in itself, as language menus do: a merchant finds theirs whatever the screen's.
            data={PROGRAM_LANGUAGES.map((l) => ({ value: l.code, label: l.name }))}
            value={code}
            onChange={(value) => value !== null && setCode(value)}
            {...invalidProps(problem, 'language')}
          />
          <Button disabled={code === language} onClick={save}>
            {t.save}
          </Button>
        </Group>
      )}
      {outcome}
    </Paper>
  );
}
