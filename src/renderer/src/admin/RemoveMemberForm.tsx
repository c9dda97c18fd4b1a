import { Alert, Button, Checkbox, Group, Modal, Stack, Text, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { formLabels, refusalText } from './node-refusal';
import { adminStore } from './admin-store';
import { formatAmount } from './format';
import { useAdminStrings } from './strings';

interface Props {
  customerId: number;
  name: string;
  balances: Array<{ name: string; balance: number; code: string | null }>;
  onRemoved: (erased: boolean) => void;
}

/**
 * Staff remove a member who asked to leave (POST /backoffice/customers/:id/remove): a reason for the
 * audit log, the balances they give up ticked in so many words, and a last confirmation.
 */
export function RemoveMemberForm({ customerId, name, balances, onRemoved }: Props) {
  const t = useAdminStrings();
  const [reason, setReason] = useState('');
  const [forfeit, setForfeit] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const held = balances.filter((b) => b.balance !== 0);
  const remove = () => {
    setConfirming(false);
    adminStore
      .getState()
      .api()
      .removeCustomer(customerId, { reason, forfeit_balances: forfeit })
      .then((done) => onRemoved(done.erased))
      .catch((e: unknown) => setError(refusalText(e, formLabels({ reason: t.removeReason }))));
  };
  return (
    <Stack gap="xs" aria-label={t.removeTitle} role="group">
      <Title order={3} size="h4">{t.removeTitle}</Title>
      <Text size="sm" c="dimmed">
        {t.removeHint}
      </Text>
      <TextInput label={t.removeReason} value={reason} onChange={(e) => setReason(e.currentTarget.value)} w={420} maw="100%" />
      {held.length > 0 && (
        <Checkbox label={t.forfeitBalances(held.map((b) => `${formatAmount(b.balance, b.code)} ${b.name}`).join(', '))} checked={forfeit} onChange={(e) => setForfeit(e.currentTarget.checked)} />
      )}
      <Group>
        <Button color="red" variant="outline" onClick={() => setConfirming(true)}>
          {t.remove}
        </Button>
      </Group>
      {error && (
        <Alert color="red" role="alert">
          {error}
        </Alert>
      )}
      <Modal opened={confirming} onClose={() => setConfirming(false)} title={t.removeConfirm(name)}>
        <Text mb="lg">{t.removeHint}</Text>
        <Group justify="flex-end">
          {/* Confirmations open on the safe answer: Enter does not do what cannot be taken back. */}
          <Button variant="default" data-autofocus onClick={() => setConfirming(false)}>
            {t.cancel}
          </Button>
          <Button color="red" onClick={remove}>
            {t.remove}
          </Button>
        </Group>
      </Modal>
    </Stack>
  );
}
