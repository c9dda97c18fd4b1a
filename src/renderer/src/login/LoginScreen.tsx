/**
 * The pairing/login step of a browser (tablet kiosk, back-office PC): the store key is typed once and
 * kept on the device. In the desktop app the preload supplies the key, so this screen only shows
 * "connecting", "not answering — retry" or "refused".
 *
 * Hooks for end-to-end tests: data-testid="login"; field "Store key" ("Clave de la tienda"); buttons
 * "Sign in" ("Iniciar sesión") and "Retry" ("Reintentar"); errors in role="alert".
 */
import { Alert, Button, Card, Center, Code, Group, List, Loader, PasswordInput, Stack, Text, Title } from '@mantine/core';
import { type FormEvent, Fragment, useId, useRef, useState } from 'react';
import { fieldErrorRef } from '../a11y/field-error';
import { sessionStore, useSession } from '../session/session-store';
import { useLoginStrings } from './strings';

/** `code` spans in a translated sentence: text between backticks is shown as code. */
function WithCode({ text }: { text: string }) {
  return (
    <>
      {text.split('`').map((part, i) => (
        <Fragment key={i}>{i % 2 === 1 ? <Code>{part}</Code> : part}</Fragment>
      ))}
    </>
  );
}

function Connecting({ label }: { label: string }) {
  return (
    <Center pt={80} data-testid="login-connecting">
      <Group gap="md" role="status">
        <Loader />
        <Text size="lg">{label}</Text>
      </Group>
    </Center>
  );
}

function Unreachable() {
  const t = useLoginStrings();
  const baseUrl = useSession((s) => s.baseUrl);
  const error = useSession((s) => s.error);
  return (
    <Alert color="orange" title={t.unreachableTitle} role="alert" data-testid="login-unreachable">
      <Stack gap="sm">
        <Text size="sm">{t.unreachable(baseUrl)}</Text>
        {error && (
          <Text size="xs" c="dimmed">
            {error}
          </Text>
        )}
        <Group>
          <Button color="orange" onClick={() => void sessionStore().getState().resume()}>
            {t.retry}
          </Button>
        </Group>
      </Stack>
    </Alert>
  );
}

function DesktopStatus() {
  const t = useLoginStrings();
  const phase = useSession((s) => s.phase);
  const error = useSession((s) => s.error);
  if (phase === 'checking') return <Connecting label={t.connecting} />;
  return (
    <Card withBorder maw={560} mx="auto" mt="xl" padding="xl" data-testid="login">
      {phase === 'unreachable' ? (
        <Unreachable />
      ) : (
        <Alert color="red" title={t.desktopRefused} role="alert">
          <Stack gap="xs">
            {error && <Text size="sm">{error}</Text>}
            <Text size="sm">{t.desktopHint}</Text>
          </Stack>
        </Alert>
      )}
    </Card>
  );
}

export function LoginScreen() {
  const t = useLoginStrings();
  const phase = useSession((s) => s.phase);
  const error = useSession((s) => s.error);
  const fromDesktop = useSession((s) => s.fromDesktop);
  const [key, setKey] = useState('');
  const [submitting, setSubmitting] = useState(false);
  const keyRef = useRef<HTMLInputElement>(null);
  const errorId = useId();
  const refused = phase === 'signed-out' && error !== null;

  if (fromDesktop) return <DesktopStatus />;
  // A key kept from an earlier visit is being checked: no form to flash.
  if (phase === 'checking' && !submitting) return <Connecting label={t.connecting} />;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!key.trim()) return;
    setSubmitting(true);
    let ok = false;
    try {
      ok = await sessionStore().getState().signIn(key);
    } finally {
      setSubmitting(false);
    }
    // Refused: the focus stays in the key field (to fix the key), with the error announced.
    if (!ok) keyRef.current?.focus();
  };
  const checking = phase === 'checking';

  return (
    <Card withBorder radius="md" maw={560} mx="auto" mt="xl" padding="xl" data-testid="login">
      <Stack gap="lg">
        <div>
          <Title order={2}>{t.title}</Title>
          <Text c="dimmed" mt={4}>
            {t.intro}
          </Text>
        </div>

        {phase === 'unreachable' && <Unreachable />}
        {refused && (
          <Alert color="red" title={t.refused} role="alert" id={errorId} data-testid="login-error">
            {error}
          </Alert>
        )}

        <form onSubmit={(e) => void submit(e)}>
          <Stack gap="md">
            <PasswordInput
              label={t.keyLabel}
              placeholder={t.keyPlaceholder}
              size="lg"
              value={key}
              // A refused key is the field's error: it says it is invalid and points at why.
              ref={fieldErrorRef(refused ? errorId : null, keyRef)}
              onChange={(e) => setKey(e.currentTarget.value)}
              autoFocus
              autoComplete="off"
              spellCheck={false}
              // Read-only, not disabled, while the key is checked: a disabled field drops the focus to the page.
              readOnly={checking}
            />
            <Button type="submit" size="lg" loading={checking} disabled={!key.trim()}>
              {t.signIn}
            </Button>
            {checking && (
              <Text size="sm" c="dimmed" role="status">
                {t.checking}
              </Text>
            )}
          </Stack>
        </form>

        <Stack gap={6}>
          <Text fw={600}>{t.whereTitle}</Text>
          <List size="sm" spacing={4} c="dimmed">
            <List.Item>
              <WithCode text={t.whereStore} />
            </List.Item>
            <List.Item>{t.whereAdmin}</List.Item>
            <List.Item>{t.whereKept}</List.Item>
          </List>
        </Stack>
      </Stack>
    </Card>
  );
}
