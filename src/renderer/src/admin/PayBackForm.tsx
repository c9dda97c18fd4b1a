import { Alert, Box, Button, Group, Modal, Radio, Stack, Text, Title } from '@mantine/core';
import { useId, useRef, useState } from 'react';
import { NodeApiError } from '../api/client';
import { currencyDigits } from '../format';
import { adminStore } from './admin-store';
import { invalidProps } from './a11y';
import { formatAmount } from './format';
import { refusalText } from './node-refusal';
import { usePayBackStrings } from './pay-back-strings';
import { useLoad } from './use-load';
import { AmountInput } from './AmountInput';

interface Props {
  customerId: number;
  name: string;
  /** After a pay-back: the page reloads the balances and the ledger. */
  onPaid: () => void;
}

/**
 * Staff pay a customer's quick-pay money back (POST /backoffice/customers/:id/pay-backs): in cash,
 * or refunded to the card its reloads were paid with, after a confirmation that opens on Cancel.
 * One idempotency key per confirmed amount: pressing again after a lost answer finishes the same
 * pay-back instead of paying twice.
 */
export function PayBackForm({ customerId, name, onPaid }: Props) {
  const t = usePayBackStrings();
  const options = useLoad(() => adminStore.getState().api().payBackOptions(customerId), [customerId]);
  const [method, setMethod] = useState<'cash' | 'card'>('cash');
  const [amount, setAmount] = useState<number | string>('');
  const [confirming, setConfirming] = useState(false);
  const [done, setDone] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  // The key of the pay-back being made: kept until the node answers it for good.
  const pending = useRef<{ key: string; amount: number; method: 'cash' | 'card' } | null>(null);
  const errorId = useId();
  const o = options.data;
  // No quick pay in the program, or nothing held (and nothing just paid back to say): no control.
  if (!o || (o.balance <= 0 && o.unfinished.length === 0 && done === null && error === null)) return null;
  const code = o.code;
  const digits = currencyDigits(code);
  const most = method === 'card' ? o.card_refundable : o.balance;
  const minor = Math.round(Number(amount) * 10 ** digits);
  const valid = amount !== '' && Number.isSafeInteger(minor) && minor > 0 && minor <= most && Math.abs(minor - Number(amount) * 10 ** digits) < 1e-6;

  const ask = () => {
    setDone(null);
    if (!valid) {
      setError(t.amountNeeded(formatAmount(most, code)));
      return;
    }
    setError(null);
    setConfirming(true);
  };
  const payBack = (resume?: { key: string; amount: number; method: 'cash' | 'card' }) => {
    setConfirming(false);
    setDone(null);
    const same = pending.current && pending.current.amount === minor && pending.current.method === method;
    if (resume) pending.current = resume;
    else if (!same) pending.current = { key: crypto.randomUUID(), amount: minor, method };
    const request = pending.current!;
    adminStore
      .getState()
      .api()
      .payBack(customerId, { amount: request.amount, method: request.method, idempotency_key: request.key })
      .then((made) => {
        pending.current = null;
        const paid = formatAmount(made.amount_paid, code);
        const balance = formatAmount(made.balance, code);
        setDone(made.status === 'partial' ? t.partial(paid, balance) : made.method === 'card' ? t.paidCard(paid, balance) : t.paidCash(paid, balance));
        setAmount('');
        options.reload();
        onPaid();
      })
      .catch((e: unknown) => {
        // A lost gateway answer (503) keeps the key: pressing again finishes this pay-back. Any other refusal is final for it.
        const lost = e instanceof NodeApiError && e.status === 503;
        if (!lost) pending.current = null;
        setError(lost && request.method === 'card' ? t.refunding : refusalText(e));
        options.reload();
        onPaid();
      });
  };

  return (
    <Stack gap="xs" aria-label={t.title} role="group">
      <Title order={3} size="h4">
        {t.title}
      </Title>
      {o.unfinished.map((u) => (
        <Alert key={u.idempotency_key} color="yellow" role="note">
          <Text size="sm">{t.unfinished(formatAmount(u.amount, code))}</Text>
          <Button mt="xs" size="xs" variant="default" onClick={() => payBack({ key: u.idempotency_key, amount: u.amount, method: u.method })}>
            {t.finish(formatAmount(u.amount, code))}
          </Button>
        </Alert>
      ))}
      {o.balance > 0 && <Text size="sm">{t.hint(formatAmount(o.balance, code), formatAmount(o.card_refundable, code))}</Text>}
      {o.balance <= 0 ? null : !o.allowed_here ? (
        <Text size="sm" c="dimmed">
          {t.centralOnly}
        </Text>
      ) : (
        <>
          <Radio.Group label={t.method} value={method} onChange={(value) => setMethod(value === 'card' ? 'card' : 'cash')}>
            <Group mt={4}>
              <Radio value="cash" label={t.cash} />
              <Radio value="card" label={t.card} disabled={o.card_refundable <= 0} />
            </Group>
          </Radio.Group>
          <Group align="end">
            <AmountInput
              currency={code}
              label={t.amount}
              description={t.amountHint(formatAmount(most, code))}
              value={amount}
              onChange={setAmount}
              allowDecimal={digits > 0}
              decimalScale={digits}
              min={0}
              w={220}
              {...invalidProps(error === null ? null : { messageId: errorId, field: 'amount' }, 'amount')}
            />
            <Button variant="default" onClick={() => setAmount((most / 10 ** digits).toFixed(digits))}>
              {t.all}
            </Button>
            <Button color="orange" onClick={ask}>
              {t.payBack}
            </Button>
          </Group>
        </>
      )}
      {/* Always on the page, so a pay-back is read out when it happens; a refusal is an alert. */}
      <Box role="status">{done && <Alert color="teal">{done}</Alert>}</Box>
      {error && (
        <Alert color="red" role="alert" id={errorId}>
          {error}
        </Alert>
      )}
      <Modal opened={confirming} onClose={() => setConfirming(false)} title={t.confirmTitle(valid ? formatAmount(minor, code) : '', name)}>
        <Text mb="lg">{method === 'card' ? t.confirmCard : t.confirmCash}</Text>
        <Group justify="flex-end">
          {/* Confirmations open on the safe answer: Enter does not pay out. */}
          <Button variant="default" data-autofocus onClick={() => setConfirming(false)}>
            {t.cancel}
          </Button>
          <Button color="orange" onClick={() => payBack()}>
            {t.yesPayBack}
          </Button>
        </Group>
      </Modal>
    </Stack>
  );
}
