import { Alert, Button, Group, Text, TextInput } from '@mantine/core';
import { errorMessage, NodeApiError } from '../api/client';
import { type FormEvent, useEffect, useId, useState } from 'react';
import { fieldErrorRef } from '../a11y/field-error';
import { useEventStreamStatus } from '../events/event-stream';
import { useSession } from '../session/session-store';
import { usesCedula } from '../../../shared/cedula-countries';
import { CHECK_IN_INPUT_ID, useCashier, useCustomer } from './context';
import { guessMethod } from './queue-store';
import { useCashierStrings } from './strings';
import { scanFailureMessage, toastScanFailure, wedgeStore } from '../wedge/wedge-store';

/** A card number as a barcode or a keyboard reader types it (a magnetic track is the node's to decode). */
const PLAIN_CARD = /^[0-9A-Za-z-]{4,64}$/;

/** A customer was checked in from the box (typed, or scanned into it): the keys are the panel's again (O for an order, X to close), not the box's. */
function leaveCheckInBox(): void {
  const focused = document.activeElement;
  if (focused instanceof HTMLElement && focused.id === CHECK_IN_INPUT_ID) focused.blur();
}

/**
 * Checks a customer in by any identification (card, phone, email, app code) and shows them. A card
 * nobody has linked yet is a normal moment: the box offers to register a new customer with it or to
 * link it to a customer found by phone or email (the register dialog, with the card).
 */
export function CheckInBox() {
  const t = useCashierStrings();
  const country = useSession((s) => s.terminal?.country ?? null);
  const cashier = useCashier();
  const offline = useEventStreamStatus() === 'offline';
  const [value, setValue] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [unlinked, setUnlinked] = useState<string | null>(null);
  const shown = useCustomer((s) => s.hash);
  const errorId = useId();
  // A scanned card nobody has linked is the same normal moment as a typed one: the same offer, not a
  // dead-end toast. Scans the node refuses otherwise still say why in a toast.
  useEffect(
    () =>
      wedgeStore.getState().claim(async (line) => {
        try {
          const reply = await cashier.api.scan(line);
          // A wedge scan into the focused box checks the customer in as a typed one does: the box lets go.
          leaveCheckInBox();
          return reply;
        } catch (e) {
          const card = line.trim();
          if (e instanceof NodeApiError && e.code === 'card_not_linked' && PLAIN_CARD.test(card)) {
            setError(null);
            setUnlinked(card.toUpperCase());
          } else toastScanFailure(scanFailureMessage(e));
          throw e;
        }
      }),
    [cashier],
  );
  // A failed check-in stops mattering once another customer comes up.
  useEffect(() => {
    setError(null);
    setUnlinked(null);
  }, [shown]);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const identification = value.trim();
    if (!identification || busy) return;
    setBusy(true);
    setError(null);
    setUnlinked(null);
    try {
      const reply = await cashier.api.checkIn(identification);
      cashier.queue.getState().noteMethod(reply.pos_session.hash, guessMethod(identification));
      setValue('');
      leaveCheckInBox();
      // The focus left the box: it goes to the customer's name in the panel, which says who came up.
      cashier.ui.getState().setFocusPanel(reply.pos_session.hash);
      void cashier.queue.getState().reload();
      await cashier.openSession(reply.pos_session.hash, reply.pos_session.id);
    } catch (e) {
      if (e instanceof NodeApiError && e.code === 'card_not_linked') {
        setUnlinked(identification.toUpperCase());
        setValue('');
      } else setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form onSubmit={(e) => void submit(e)} aria-label={t.checkInRegion} style={{ flex: 1, minWidth: 280 }}>
      <Group align="flex-end" gap="sm" wrap="nowrap">
        <TextInput
          id={CHECK_IN_INPUT_ID}
          // "No customer matches…" is the box's own error: the box says it is invalid and points at it.
          ref={fieldErrorRef(error ? errorId : null)}
          label={t.checkInLabel}
          placeholder={usesCedula(country) ? t.checkInPlaceholderCedula : t.checkInPlaceholder}
          size="lg"
          style={{ flex: 1 }}
          value={value}
          onChange={(e) => {
            setValue(e.currentTarget.value);
            if (error) setError(null);
            if (unlinked) setUnlinked(null);
          }}
          autoComplete="off"
          spellCheck={false}
          data-testid="check-in-input"
        />
        <Button type="submit" size="lg" loading={busy} disabled={offline || value.trim() === ''}>
          {t.checkInButton}
        </Button>
      </Group>
      {error && (
        <Alert color="red" role="alert" id={errorId} title={t.checkInFailed} mt="sm" data-testid="check-in-error">
          {error}
        </Alert>
      )}
      {unlinked && (
        <Alert color="blue" title={t.unlinkedTitle(unlinked)} mt="sm" data-testid="unlinked-card">
          <Text size="sm" mb="sm">
            {t.unlinkedHint}
          </Text>
          <Group gap="sm">
            <Button size="md" data-testid="register-with-card" onClick={() => cashier.ui.getState().registerCard({ number: unlinked, mode: 'new' })}>
              {t.registerWithCard}
            </Button>
            <Button size="md" variant="light" data-testid="link-card" onClick={() => cashier.ui.getState().registerCard({ number: unlinked, mode: 'link' })}>
              {t.linkCard}
            </Button>
          </Group>
        </Alert>
      )}
    </form>
  );
}
