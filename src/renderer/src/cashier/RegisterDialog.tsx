import { Alert, Button, Group, Modal, SegmentedControl, Stack, Text, TextInput } from '@mantine/core';
import { errorMessage } from '../api/client';
import { type FormEvent, useId, useState } from 'react';
import type { CustomerAtCounter, InStoreRegistration } from '../api/terminal-api';
import { useEventStreamStatus } from '../events/event-stream';
import { useCashier, useCashierUi } from './context';
import type { CustomerStore } from './customer-store';
import type { CardToLink } from './ui-store';
import { useCashierStrings } from './strings';
import { fullName } from './customer-name';
import { NameInput } from './NameInput';
import { toastStore } from '../wedge/toast-store';
import { useSession } from '../session/session-store';
import { callingCodeOf } from '../phone-format';

/**
 * The customer the panel shows for `hash` once it has been read. A member already waiting in the
 * queue has their session's own event refresh the panel as it opens, and that read wins over the
 * opening one: the panel is still loading when openSession returns.
 */
function readPanel(customer: CustomerStore, hash: string, timeoutMs = 10_000): Promise<CustomerAtCounter | null> {
  const settled = (s: ReturnType<CustomerStore['getState']>) => s.hash !== hash || s.phase !== 'loading';
  const now = customer.getState();
  if (settled(now)) return Promise.resolve(now.hash === hash ? now.customer : null);
  return new Promise((resolve) => {
    const done = (value: CustomerAtCounter | null) => {
      stop();
      clearTimeout(timer);
      resolve(value);
    };
    const stop = customer.subscribe((s) => {
      if (settled(s)) done(s.hash === hash ? s.customer : null);
    });
    const timer = setTimeout(() => done(null), timeoutMs);
  });
}

/** A missing contact is said when Register is pressed, not only when the field is reached. */
const ANNOUNCED = { role: 'alert' } as const;

function RegisterFields({ onDone, card }: { onDone(): void; card: CardToLink | null }) {
  const linking = card?.mode === 'link';
  const t = useCashierStrings();
  const cashier = useCashier();
  const offline = useEventStreamStatus() === 'offline';
  const offlineReasonId = useId();
  const [by, setBy] = useState<'phone' | 'email'>('phone');
  const [phone, setPhone] = useState('');
  const [callingCode, setCallingCode] = useState('');
  // The hint names what an empty box means: the program's country's code ("+34"), not a fixed "1 or 34".
  const ownCode = callingCodeOf(useSession((s) => s.terminal?.country ?? null));
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
    const code = callingCode.trim().replace(/^\+/, '');
    const phoneNumber = { number: phone.trim(), ...(code ? { code } : {}) };
    // The other contact is optional (not when linking a card): a customer found by one gets the
    // other added when they have none, so a guest registered by phone can claim the app by email.
    const registration: InStoreRegistration = by === 'phone' ? { phone_number: phoneNumber } : { email: contact };
    if (!linking && by === 'phone' && email.trim()) registration.email = email.trim();
    if (!linking && by === 'email' && phone.trim()) registration.phone_number = phoneNumber;
    if (firstName.trim() && !linking) registration.first_name = firstName.trim();
    if (lastName.trim() && !linking) registration.last_name = lastName.trim();
    if (card) registration.card_number = card.number;
    setBusy(true);
    setError(null);
    try {
      // Linking to an existing customer: find them first (check-in by that phone or email), so an
      // unknown contact is an error here rather than a new account.
      if (linking) await cashier.api.checkIn(by === 'phone' ? `${code ? `+${code}` : ''}${contact}` : contact);
      const asked = Date.now();
      const reply = await cashier.api.register(registration);
      cashier.queue.getState().noteMethod(reply.pos_session.hash, 'registered');
      void cashier.queue.getState().reload();
      // The cashier goes on with the new customer: the panel's name takes the focus (it was lost
      // with the dialog's form), so Tab reaches Place order next.
      cashier.ui.getState().setFocusPanel(reply.pos_session.hash);
      onDone();
      await cashier.openSession(reply.pos_session.hash, reply.pos_session.id);
      // The contact belonged to a member already: they were checked in as they are (the name typed
      // is not used, a card given is now theirs). Said, so the cashier does not think a new customer was made.
      const shown = await readPanel(cashier.customer, reply.pos_session.hash);
      if (!linking && shown && shown.user.member_since * 1000 < asked - 60_000) {
        cashier.queue.getState().noteMethod(reply.pos_session.hash, by);
        toastStore.getState().push({ title: t.alreadyMember(fullName(shown.user)), message: t.alreadyMemberHint, tone: 'info' });
      }
    } catch (e) {
      setError(errorMessage(e));
      setBusy(false);
    }
  }

  // The contact chosen above comes first and is required; the other one, optional, follows it.
  const phoneFields = (
    <Group align="flex-start" gap="xs" wrap="nowrap">
      <TextInput size="lg" w={140} label={t.callingCode} description={t.callingCodeHint(ownCode)} inputMode="tel" value={callingCode} onChange={(e) => setCallingCode(e.currentTarget.value)} />
      <TextInput
        size="lg"
        style={{ flex: 1 }}
        label={by === 'phone' ? t.phoneNumber : t.phoneOptional}
        inputMode="tel"
        autoComplete="off"
        data-autofocus={by === 'phone' || undefined}
        value={phone}
        onChange={(e) => setPhone(e.currentTarget.value)}
        error={by === 'phone' && missing && !phone.trim() ? t.phoneRequired : undefined}
        errorProps={ANNOUNCED}
      />
    </Group>
  );
  const emailField = (
    <TextInput
      size="lg"
      type="email"
      label={by === 'email' ? t.email : t.emailOptional}
      autoComplete="off"
      data-autofocus={by === 'email' || undefined}
      value={email}
      onChange={(e) => setEmail(e.currentTarget.value)}
      error={by === 'email' && missing && !email.trim() ? t.emailRequired : undefined}
      errorProps={ANNOUNCED}
    />
  );

  return (
    <form onSubmit={(e) => void submit(e)} noValidate>
      <Stack gap="md">
        <SegmentedControl
          aria-label={t.registerBy}
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
        {by === 'phone' ? phoneFields : emailField}
        {!linking && (by === 'phone' ? emailField : phoneFields)}
        {linking ? (
          <Text size="sm">{t.linkCardHint}</Text>
        ) : (
          <Group grow>
            <NameInput size="lg" label={t.firstName} value={firstName} onValue={setFirstName} />
            <NameInput size="lg" label={t.lastName} value={lastName} onValue={setLastName} />
          </Group>
        )}
        {error && (
          <Alert color="red" role="alert" title={linking ? t.linkFailed : t.registerFailed} data-testid="register-error">
            {error}
          </Alert>
        )}
        {/* A greyed button alone does not say why (the dialog dims the page's own offline note). */}
        {offline && (
          <Alert color="yellow" id={offlineReasonId} data-testid="register-offline" role="status">
            {t.registerOffline}
          </Alert>
        )}
        <Group justify="flex-end">
          <Button type="submit" size="lg" loading={busy} disabled={offline} aria-describedby={offline ? offlineReasonId : undefined}>
            {linking ? t.linkSubmit : t.registerSubmit}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/**
 * In-store registration by phone or email (N), the other contact optional: the customer is checked
 * in at once (one the contact finds gets the other added when they have none). Opened from
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
