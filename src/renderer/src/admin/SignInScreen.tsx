import { Alert, Anchor, Button, Center, Paper, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { useEffect, useRef, useState } from 'react';
import { NodeApiError } from '../api/client';
import { refusalText } from './node-refusal';
import { PairedStoreNote } from './PairedStoreNote';
import { adminStore, useAdmin } from './admin-store';
import { useAdminStrings } from './strings';
import { go, type HashRoute } from './use-hash-route';

function Failure() {
  const error = useAdmin((s) => s.error);
  return error ? (
    <Alert color="red" role="alert">
      {error}
    </Alert>
  ) : null;
}

function PasswordForm() {
  const t = useAdminStrings();
  const busy = useAdmin((s) => s.busy);
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [forgot, setForgot] = useState<{ ok: boolean; text: string } | null>(null);
  const askForReset = () => {
    const address = email.trim();
    if (!address) {
      setForgot({ ok: false, text: t.forgotNeedsEmail });
      return;
    }
    adminStore
      .getState()
      .api()
      .requestPasswordReset(address)
      .then(() => setForgot({ ok: true, text: t.forgotSent(address) }))
      .catch((e: unknown) => setForgot({ ok: false, text: refusalText(e) }));
  };
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        void adminStore.getState().begin((api) => api.signIn(email, password));
      }}
    >
      <Stack>
        <Title order={1} size="h2">{t.signInTitle}</Title>
        <PairedStoreNote />
        <TextInput label={t.email} type="email" autoComplete="username" value={email} onChange={(e) => setEmail(e.currentTarget.value)} required />
        <PasswordInput label={t.password} autoComplete="current-password" value={password} onChange={(e) => setPassword(e.currentTarget.value)} required />
        <Failure />
        <Button type="submit" loading={busy}>
          {t.signIn}
        </Button>
        {/* After five wrong passwords the node locks the account and says to reset the password: the way is here. */}
        <Anchor component="button" type="button" size="sm" onClick={askForReset}>
          {t.forgot}
        </Anchor>
        {forgot && (
          <Alert color={forgot.ok ? 'teal' : 'red'} role={forgot.ok ? 'status' : 'alert'}>
            {forgot.text}
          </Alert>
        )}
      </Stack>
    </form>
  );
}

/** The node's answer to a link's token that was used already or voided (an expired one is `code_expired`). */
const isDeadLink = (e: unknown) => e instanceof NodeApiError && e.code === 'invalid_code';

/** An invitation or a reset: a new password with the emailed token. */
function NewPasswordForm({ kind, token }: { kind: 'accept' | 'reset'; token: string }) {
  const t = useAdminStrings();
  const busy = useAdmin((s) => s.busy);
  const [password, setPassword] = useState('');
  const [done, setDone] = useState(false);
  // The link was used already (or voided): the node's "Check it" fits a typed code, not
  // a link; the person most likely chose the password with it and only has to sign in.
  const [dead, setDead] = useState(false);
  const [error, setError] = useState<string | null>(null);
  if (done)
    return (
      <Stack>
        <Alert color="teal">{t.resetDone}</Alert>
        <PasswordForm />
      </Stack>
    );
  if (dead)
    return (
      <Stack>
        <Alert color="red" role="alert">
          {kind === 'accept' ? t.invitationLinkDead : t.resetLinkDead}
        </Alert>
        <PasswordForm />
      </Stack>
    );
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        if (kind === 'accept') {
          let deadLink = false;
          void adminStore
            .getState()
            .begin((api) =>
              api.acceptInvitation(token, password).catch((e: unknown) => {
                deadLink = isDeadLink(e);
                throw e;
              }),
            )
            .then(() => {
              if (adminStore.getState().token) go('#/dashboard');
              else if (deadLink) {
                // Said once, by this form: not also as the sign-in form's failure below it.
                adminStore.setState({ error: null });
                setDead(true);
              }
            });
          return;
        }
        adminStore
          .getState()
          .api()
          .resetPassword(token, password)
          .then(() => setDone(true))
          .catch((e: unknown) => (isDeadLink(e) ? setDead(true) : setError(refusalText(e))));
      }}
    >
      <Stack>
        <Title order={1} size="h2">{kind === 'accept' ? t.acceptTitle : t.resetTitle}</Title>
        <PasswordInput label={t.newPassword} autoComplete="new-password" value={password} onChange={(e) => setPassword(e.currentTarget.value)} required />
        <Failure />
        {error && (
          <Alert color="red" role="alert">
            {error}
          </Alert>
        )}
        <Button type="submit" loading={busy}>
          {kind === 'accept' ? t.accept : t.reset}
        </Button>
      </Stack>
    </form>
  );
}

/** The one-time link `punchcard init` prints: used once, as soon as the page opens. */
function LinkSignIn({ token }: { token: string }) {
  const t = useAdminStrings();
  const error = useAdmin((s) => s.error);
  const used = useRef(false);
  useEffect(() => {
    if (used.current) return;
    used.current = true;
    void adminStore
      .getState()
      .begin((api) => api.signInWithLink(token))
      .then(() => adminStore.getState().token && go('#/dashboard'));
  }, [token]);
  return error ? <PasswordForm /> : <Text>{t.linkSigningIn}</Text>;
}

export function SignInScreen({ route }: { route: HashRoute }) {
  const token = route.query.get('token') ?? '';
  const [page] = route.parts;
  return (
    <Center pt="xl">
      <Paper withBorder p="xl" w={420} maw="100%">
        {page === 'sign-in-link' && token ? <LinkSignIn token={token} /> : page === 'accept' && token ? <NewPasswordForm kind="accept" token={token} /> : page === 'reset' && token ? <NewPasswordForm kind="reset" token={token} /> : <PasswordForm />}
      </Paper>
    </Center>
  );
}
