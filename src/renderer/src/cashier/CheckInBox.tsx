import { Alert, Button, Group, TextInput } from '@mantine/core';
import { errorMessage } from '../api/client';
import { type FormEvent, useEffect, useState } from 'react';
import { useEventStreamStatus } from '../events/event-stream';
import { CHECK_IN_INPUT_ID, useCashier, useCustomer } from './context';
import { guessMethod } from './queue-store';
import { useCashierStrings } from './strings';

/** Checks a customer in by any identification (card, phone, email, app code) and shows them. */
export function CheckInBox() {
  const t = useCashierStrings();
  const cashier = useCashier();
  const offline = useEventStreamStatus() === 'offline';
  const [value, setValue] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const shown = useCustomer((s) => s.hash);
  // A failed check-in stops mattering once another customer comes up.
  useEffect(() => setError(null), [shown]);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const identification = value.trim();
    if (!identification || busy) return;
    setBusy(true);
    setError(null);
    try {
      const reply = await cashier.api.checkIn(identification);
      cashier.queue.getState().noteMethod(reply.pos_session.hash, guessMethod(identification));
      setValue('');
      void cashier.queue.getState().reload();
      await cashier.openSession(reply.pos_session.hash, reply.pos_session.id);
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form onSubmit={(e) => void submit(e)} aria-label={t.checkInRegion} style={{ flex: 1, minWidth: 280 }}>
      <Group align="flex-end" gap="sm" wrap="nowrap">
        <TextInput
          id={CHECK_IN_INPUT_ID}
          label={t.checkInLabel}
          placeholder={t.checkInPlaceholder}
          size="lg"
          style={{ flex: 1 }}
          value={value}
          onChange={(e) => {
            setValue(e.currentTarget.value);
            if (error) setError(null);
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
        <Alert color="red" role="alert" title={t.checkInFailed} mt="sm" data-testid="check-in-error">
          {error}
        </Alert>
      )}
    </form>
  );
}
