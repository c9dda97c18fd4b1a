import { Alert, Button, Group, Modal, SegmentedControl, Stack, Text, TextInput } from '@mantine/core';
import { errorMessage } from '../api/client';
import { type FormEvent, useState } from 'react';
import type { InStoreRegistration } from '../api/terminal-api';
import { useEventStreamStatus } from '../events/event-stream';
import { useCashier, useCashierUi } from './context';
import type { CardToLink } from './ui-store';
import { useCashierStrings } from './strings';

function RegisterFields({ onDone, card }: { onDone(): void; card: CardToLink | null }) {
  const linking = card?.mode === 'link';
  const t = useCashierStrings();
  const cashier = useCashier();
  const offline = useEventStreamStatus() === 'offline';
  const [by, setBy] = useState<'phone' | 'email'>('phone');
  const [phone, setPhone] = useState('');
  const [callingCode, setCallingCode] = useState('');
  const [email, setEmail] = useState('');
  const [firstName, setFirstName] = useState('');
  const [lastName, setLastName] = useState('');
  const [missing, setMissing] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const contact = by === 'phone' ? phone.trim() : email.trim();
    if (!contact) {
      setMissing(true);
      return;
    }
    const registration: InStoreRegistration =
      by === 'phone' ? { phone_number: { number: contact, ...(callingCode.trim() ? { code: callingCode.trim().replace(/^\+/, '') } : {}) } } : { email: contact };
    if (firstName.trim() && !linking) registration.first_name = firstName.trim();
    if (lastName.trim() && !linking) registration.last_name = lastName.trim();
    if (card) registration.card_number = card.number;
    setBusy(true);
    setError(null);
    try {
      // Linking to an existing customer: find them first (check-in by that phone or email), so an
      // unknown contact is an error here rather than a new account.
      if (linking) await cashier.api.checkIn(by === 'phone' ? `${callingCode.trim() ? `+${callingCode.trim().replace(/^\+/, '')}` : ''}${contact}` : contact);
      const reply = await cashier.api.register(registration);
      cashier.queue.getState().noteMethod(reply.pos_session.hash, 'registered');
      void cashier.queue.getState().reload();
      onDone();
      await cashier.openSession(reply.pos_session.hash, reply.pos_session.id);
    } catch (e) {
      setError(errorMessage(e));
      setBusy(false);
    }
  }

  return (
    <form onSubmit={(e) => void submit(e)} noValidate>
      <Stack gap="md">
        <SegmentedControl
          size="md"
          fullWidth
          value={by}
          onChange={(value) => {
            setBy(value === 'email' ? 'email' : 'phone');
            setMissing(false);
          }}
          data={[
            { value: 'phone', label: t.byPhone },
            { value: 'email', label: t.byEmail },
          ]}
        />
        {by === 'phone' ? (
          <Group align="flex-start" gap="xs" wrap="nowrap">
            <TextInput size="lg" w={140} label={t.callingCode} description={t.callingCodeHint} inputMode="tel" value={callingCode} onChange={(e) => setCallingCode(e.currentTarget.value)} />
            <TextInput
              size="lg"
              style={{ flex: 1 }}
              label={t.phoneNumber}
              inputMode="tel"
              autoComplete="off"
              data-autofocus
              value={phone}
              onChange={(e) => setPhone(e.currentTarget.value)}
              error={missing && !phone.trim() ? t.phoneRequired : undefined}
            />
          </Group>
        ) : (
          <TextInput size="lg" type="email" label={t.email} autoComplete="off" data-autofocus value={email} onChange={(e) => setEmail(e.currentTarget.value)} error={missing && !email.trim() ? t.emailRequired : undefined} />
        )}
        {linking ? (
          <Text size="sm">{t.linkCardHint}</Text>
        ) : (
          <Group grow>
            <TextInput size="lg" label={t.firstName} value={firstName} onChange={(e) => setFirstName(e.currentTarget.value)} />
            <TextInput size="lg" label={t.lastName} value={lastName} onChange={(e) => setLastName(e.currentTarget.value)} />
          </Group>
        )}
        {error && (
          <Alert color="red" role="alert" title={linking ? t.linkFailed : t.registerFailed} data-testid="register-error">
            {error}
          </Alert>
        )}
        <Group justify="flex-end">
          <Button type="submit" size="lg" loading={busy} disabled={offline}>
            {linking ? t.linkSubmit : t.registerSubmit}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/**
 * In-store registration by phone or email (N): the new customer is checked in at once. Opened from
 * an unlinked card, it registers a new customer with the card or links the card to the customer the
 * phone or email finds.
 */
export function RegisterDialog() {
  const t = useCashierStrings();
  const cashier = useCashier();
  const open = useCashierUi((s) => s.dialog === 'register');
  const card = useCashierUi((s) => s.card);
  const close = () => cashier.ui.getState().show(null);
  const title = card ? (card.mode === 'link' ? t.linkCardTitle(card.number) : t.registerWithCardTitle(card.number)) : t.registerTitle;
  return (
    <Modal opened={open} onClose={close} size="lg" title={title}>
      {open && <RegisterFields key={card ? `${card.mode}:${card.number}` : 'plain'} onDone={close} card={card} />}
    </Modal>
  );
}
