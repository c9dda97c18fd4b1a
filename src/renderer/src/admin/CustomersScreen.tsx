import { Alert, Anchor, Badge, Box, Button, Fieldset, Group, Modal, Select, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useEffect, useId, useRef, useState } from 'react';
import { NodeApiError } from '../api/client';
import { type FieldProblem, invalidProps, TableScroll } from './a11y';
import { formLabels, refusalText, withoutHint } from './node-refusal';
import { RemoveMemberForm } from './RemoveMemberForm';
import { PayBackForm } from './PayBackForm';
import { PersonalDataDownload } from './PersonalDataDownload';
import { MemberExportDownload } from './MemberExportDownload';
import type { CustomerHit } from './admin-api';
import { adminStore, useAdmin } from './admin-store';
import { currencyDigits } from '../format';
import { formatAmount, formatBirthdate, formatDate, formatDateTime, formatLocalDate, formatMovement, languageName } from './format';
import { useLanguage } from '../i18n/language-store';
import { roleAllows } from '../../../shared/staff-roles';
import { useAdminStrings } from './strings';
import { useLoad } from './use-load';
import { programCountry, useProgramCountry } from './program-country';
import { usesCedula } from '../../../shared/cedula-countries';
import { formatPhone } from '../phone-format';
import { AmountInput } from './AmountInput';

/** What a search matched a customer by: an identifier the counter takes (token: an app code), or a name. */
const FOUND_BY = ['token', 'email', 'card', 'cedula', 'passport', 'phone', 'name'] as const;
type FoundBy = (typeof FOUND_BY)[number];

/** Customers a search shows; one more is asked for, to tell whether more match. */
const SEARCH_PAGE = 25;

export function CustomerSearch() {
  const t = useAdminStrings();
  const role = useAdmin((s) => s.staff?.role);
  // The box mentions a cédula only where the program's country has them.
  const country = useProgramCountry();
  const [q, setQ] = useState('');
  const [hits, setHits] = useState<CustomerHit[] | null>(null);
  const [more, setMore] = useState(false);
  const [error, setError] = useState<string | null>(null);
  return (
    <Stack>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          setError(null);
          // Emptied first, so the same count found again is said again.
          setHits(null);
          adminStore
            .getState()
            .api()
            .customers(q, SEARCH_PAGE + 1)
            .then((found) => {
              setHits(found.items.slice(0, SEARCH_PAGE));
              setMore(found.items.length > SEARCH_PAGE);
            })
            .catch((e: unknown) => setError(refusalText(e)));
        }}
      >
        <Group align="end">
          <TextInput label={t.search(usesCedula(country))} value={q} onChange={(e) => setQ(e.currentTarget.value)} w={360} maw="100%" />
          <Button type="submit">{t.find}</Button>
        </Group>
      </form>
      {error && (
        <Alert color="red" role="alert">
          {error}
        </Alert>
      )}
      {/* Always on the page, so screen readers hear what a search found (a region added with its text is often not read). */}
      <Box role="status">
        {hits && <Text>{hits.length === 0 ? t.noMatch : t.customersFound(hits.length)}</Text>}
        {hits && more && <Text>{t.moreMatch(hits.length)}</Text>}
      </Box>
      {hits && hits.length > 0 && (
        <TableScroll>
          <Table aria-label={t.customersTable} striped>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t.name}</Table.Th>
                <Table.Th>{t.email}</Table.Th>
                <Table.Th>{t.phoneColumn}</Table.Th>
                <Table.Th>{t.foundBy}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {hits.map((c) => (
                <Table.Tr key={c.id}>
                  <Table.Td>
                    <Anchor href={`#/customers/${c.id}`}>
                      {c.first_name} {c.last_name}
                    </Anchor>
                  </Table.Td>
                  <Table.Td>{c.email ?? '—'}</Table.Td>
                  <Table.Td>{c.phone ? formatPhone(c.phone, country) : '—'}</Table.Td>
                  <Table.Td>{(FOUND_BY as readonly string[]).includes(c.matched_by) ? t[`foundBy_${c.matched_by as FoundBy}`] : c.matched_by}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </TableScroll>
      )}
      {role && roleAllows(role, 'customers.export_all') && <MemberExportDownload />}
    </Stack>
  );
}

/** Which form a message on the customer's page answers, and the field the node (or this page) named. */
type Form = 'adjust' | 'block' | 'email';

export function CustomerDetail({ customerId }: { customerId: number }) {
  const t = useAdminStrings();
  const role = useAdmin((s) => s.staff?.role);
  const screen = useLanguage();
  // Amounts (formatAmount) in Spanish as the program's country writes them.
  useProgramCountry();
  const profile = useLoad(() => adminStore.getState().api().customer(customerId), [customerId]);
  const [currency, setCurrency] = useState<string | null>(null);
  const [amount, setAmount] = useState<number | string>('');
  const [reason, setReason] = useState('');
  const [message, setMessage] = useState<{ ok: boolean; text: string; form?: Form; field?: string | null } | null>(null);
  const [blockReason, setBlockReason] = useState('');
  const [confirmingBlock, setConfirmingBlock] = useState(false);
  const [newEmail, setNewEmail] = useState('');
  const [removed, setRemoved] = useState<{ erased: boolean } | null>(null);
  // Block and Unblock replace each other: the focus goes to the one shown next, not to the page's top.
  const blockField = useRef<HTMLInputElement>(null);
  const unblockButton = useRef<HTMLButtonElement>(null);
  // After Block or Unblock: the blocked state whose button (or field) then takes the focus.
  const [focusWhen, setFocusWhen] = useState<boolean | null>(null);
  const blocked = profile.data?.blocked;
  useEffect(() => {
    if (focusWhen === null || blocked !== focusWhen) return;
    setFocusWhen(null);
    (blocked ? unblockButton : blockField).current?.focus();
  }, [blocked, focusWhen]);
  // A refusal names the field as its form does: the adjustment's and the block's reasons differ.
  const labelsOf = (form: Form) => formLabels(form === 'adjust' ? { reason: t.adjustReason } : form === 'block' ? { reason: t.blockReason } : {});
  const failed = (form: Form) => (e: unknown) => setMessage({ ok: false, text: refusalText(e, labelsOf(form)), form, field: e instanceof NodeApiError ? e.field : null });
  const refusalId = useId();
  const act = (work: Promise<unknown>, done: string, form: Form) =>
    work
      .then(() => {
        setMessage({ ok: true, text: done });
        setBlockReason('');
        setNewEmail('');
        if (form === 'block') setFocusWhen(!profile.data?.blocked);
        profile.reload();
      })
      .catch(failed(form));
  const problemIn = (form: Form): FieldProblem | null => (message && !message.ok && message.form === form ? { messageId: refusalId, field: message.field ?? null } : null);
  if (removed)
    return (
      <Stack>
        <Alert color="teal" role="status">
          {removed.erased ? t.removedErased : t.removedOnlyHere}
        </Alert>
        <Anchor href="#/customers">{t.search(usesCedula(programCountry()))}</Anchor>
      </Stack>
    );
  if (profile.error)
    return (
      <Alert color="red" role="alert">
        {profile.error}
      </Alert>
    );
  const p = profile.data;
  if (!p) return <Text>{t.loading}</Text>;
  // A member a counter enrolled from another program shows by name only until they confirm here:
  // their email is hidden, not missing, so there is none to add.
  const byNameOnly = p.counter_enrolled;
  const contact = [p.email, p.phone && formatPhone(p.phone, programCountry()), p.cedula].filter(Boolean);
  const nameOf = (id: string) => p.balances.find((b) => b.currency === id)?.name ?? id;
  const codeOf = (id: string | null) => p.balances.find((b) => b.currency === id)?.code ?? null;
  // The adjustment is typed in the currency's units (12.50 USD, 300 points) and sent in minor units.
  const code = codeOf(currency);
  const digits = code ? currencyDigits(code) : 0;
  const minor = Math.round(Number(amount) * 10 ** digits);
  const amountProblem = currency === null ? t.pickCurrency : amount === '' || !Number.isSafeInteger(minor) || minor === 0 || Math.abs(minor - Number(amount) * 10 ** digits) > 1e-6 ? t.amountNeeded(digits) : null;
  return (
    <Stack>
      <Group>
        <Title order={2} size="h3">
          {p.first_name} {p.last_name}
        </Title>
        {p.flagged && <Badge tt="none" color="red">{t.flagged}</Badge>}
        {p.blocked && <Badge tt="none" color="red">{t.blocked}</Badge>}
      </Group>
      {p.flagged && <Text c="red">{t.flaggedBecause}</Text>}
      {p.blocked && p.blocked_reason && <Text c="red">{t.blockedBecause(p.blocked_reason)}</Text>}
      {/* A long email breaks rather than widen the page (at 320 px it scrolled sideways). */}
      <Text style={{ overflowWrap: 'anywhere' }}>{contact.length > 0 ? contact.join(' · ') : '—'}</Text>
      {/* What a merchant needs for birthday treats and to know whom they may email or text. A member
          shown by name only has their birthday hidden, not missing: nothing is said of it. */}
      <Text data-testid="customer-membership">
        {[
          ...(byNameOnly ? [] : [p.birthdate ? t.birthday(formatBirthdate(p.birthdate)) : t.noBirthday]),
          t.contactConsent(p.contact_consent.email, p.contact_consent.sms),
          t.customerLanguage(p.language === null ? null : languageName(p.language, screen)),
          t.memberSince(formatLocalDate(p.member_since)),
        ].join(' · ')}
      </Text>
      {!p.email && !byNameOnly && role && roleAllows(role, 'customers.write') && (
        <form
          noValidate
          onSubmit={(event) => {
            event.preventDefault();
            act(adminStore.getState().api().addCustomerEmail(customerId, newEmail), t.addEmailDone, 'email');
          }}
        >
          <Group align="end">
            <TextInput
              label={t.addEmailLabel}
              description={t.addEmailHint}
              type="email"
              autoComplete="off"
              value={newEmail}
              onChange={(e) => setNewEmail(e.currentTarget.value)}
              w={560}
              maw="100%"
              {...invalidProps(problemIn('email'), 'email')}
            />
            <Button type="submit" variant="light">
              {t.addEmail}
            </Button>
          </Group>
        </form>
      )}
      <TableScroll>
        <Table aria-label={t.balancesTable} striped>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t.currency}</Table.Th>
              <Table.Th>{t.balance}</Table.Th>
              <Table.Th>{t.expiring}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {p.balances.map((b) => (
              <Table.Tr key={b.currency} aria-label={b.name}>
                <Table.Td>{b.name}</Table.Td>
                <Table.Td>{formatAmount(b.balance, b.code)}</Table.Td>
                <Table.Td>{b.expiring.length === 0 ? t.nothingExpiring : b.expiring.map((e) => t.expiresOn(formatAmount(e.amount, b.code), formatDate(e.date, p.time_zone))).join(' · ')}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </TableScroll>
      <Text aria-label={t.loyaltyCards}>
        <b>{t.loyaltyCards}:</b> {p.cards.length === 0 ? t.noLoyaltyCards : p.cards.map((c) => c.number).join(' · ')}
      </Text>
      {p.billing_profiles.length === 0 ? (
        <Text c="dimmed">{t.noBillingProfiles}</Text>
      ) : (
        <TableScroll>
          <Table aria-label={t.billingTable} striped>
            <Table.Tbody>
              {p.billing_profiles.map((b) => (
                <Table.Tr key={`${b.brand}-${b.last4}-${b.expiry_month}-${b.expiry_year}`}>
                  <Table.Td>{t.cardEnding(b.brand, b.last4)}</Table.Td>
                  <Table.Td>{t.cardExpiry(b.expiry_month, b.expiry_year)}</Table.Td>
                  <Table.Td>{b.default && <Badge variant="light">{t.defaultCard}</Badge>}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </TableScroll>
      )}
      {role && roleAllows(role, 'customers.write') && (
        <Fieldset legend={t.adjustTitle} variant="unstyled">
          <Group align="end">
            <Select
              label={t.currency}
              value={currency}
              onChange={setCurrency}
              allowDeselect={false}
              data={p.balances.map((b) => ({ value: b.currency, label: b.name }))}
              {...invalidProps(problemIn('adjust'), 'currency')}
            />
            <AmountInput currency={code} label={t.amount} value={amount} onChange={setAmount} allowDecimal {...invalidProps(problemIn('adjust'), 'amount')} />
            <TextInput label={t.adjustReason} value={reason} onChange={(e) => setReason(e.currentTarget.value)} w={320} maw="100%" {...invalidProps(problemIn('adjust'), 'reason')} />
            <Button
              onClick={() => {
                if (amountProblem) {
                  setMessage({ ok: false, text: amountProblem, form: 'adjust', field: currency === null ? 'currency' : 'amount' });
                  return;
                }
                void adminStore
                  .getState()
                  .api()
                  .adjust(customerId, { currency: currency!, amount: minor, reason })
                  .then((made) => {
                    setMessage({ ok: true, text: t.adjusted(formatAmount(made.balance, code)) });
                    setReason('');
                    setAmount('');
                    profile.reload();
                  })
                  .catch(failed('adjust'));
              }}
            >
              {t.adjust}
            </Button>
          </Group>
        </Fieldset>
      )}
      {role && roleAllows(role, 'customers.write') && (
        <Group align="end">
          {p.blocked ? (
            <Button ref={unblockButton} color="teal" variant="light" onClick={() => act(adminStore.getState().api().unblock(customerId), t.unblockDone, 'block')}>
              {t.unblock}
            </Button>
          ) : (
            <>
              <TextInput
                label={t.blockReason}
                value={blockReason}
                onChange={(e) => setBlockReason(e.currentTarget.value)}
                w={320}
                maw="100%"
                {...invalidProps(problemIn('block'), 'reason', blockField)}
              />
              {/* Blocking refuses the customer at every store: asked first (unblocking is not). A missing reason is said without asking. */}
              <Button
                color="red"
                variant="light"
                onClick={() =>
                  blockReason.trim() === '' ? setMessage({ ok: false, text: t.fieldRequired(withoutHint(t.blockReason)), form: 'block', field: 'reason' }) : setConfirmingBlock(true)
                }
              >
                {t.block}
              </Button>
              <Modal opened={confirmingBlock} onClose={() => setConfirmingBlock(false)} title={t.confirmBlock(`${p.first_name} ${p.last_name}`)}>
                <Text mb="lg">{t.confirmBlockBody}</Text>
                <Group justify="flex-end">
                  {/* The safe answer has the focus: Enter on the dialog does not block. */}
                  <Button variant="default" data-autofocus onClick={() => setConfirmingBlock(false)}>
                    {t.cancel}
                  </Button>
                  <Button
                    color="red"
                    onClick={() => {
                      setConfirmingBlock(false);
                      act(adminStore.getState().api().block(customerId, blockReason), t.blockDone, 'block');
                    }}
                  >
                    {t.yesBlock}
                  </Button>
                </Group>
              </Modal>
            </>
          )}
        </Group>
      )}
      {/* Always on the page, so what an action did is read out when it happens; a refusal is an alert. */}
      <Box role="status">
        {message?.ok && (
          <Alert color="teal">
            {message.text}
          </Alert>
        )}
      </Box>
      {message && !message.ok && (
        <Alert color="red" role="alert" id={refusalId}>
          {message.text}
        </Alert>
      )}
      {role && roleAllows(role, 'customers.export') && <PersonalDataDownload customerId={customerId} />}
      {role && roleAllows(role, 'customers.write') && <PayBackForm customerId={customerId} name={`${p.first_name} ${p.last_name}`} onPaid={profile.reload} />}
      {role && roleAllows(role, 'customers.write') && (
        <RemoveMemberForm
          customerId={customerId}
          name={`${p.first_name} ${p.last_name}`}
          balances={p.balances.map((b) => ({ name: b.name, balance: b.balance, code: b.code }))}
          onRemoved={(erased) => setRemoved({ erased })}
        />
      )}
      <TableScroll>
        <Table aria-label={t.ledgerTable} striped>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t.when}</Table.Th>
              <Table.Th>{t.currency}</Table.Th>
              <Table.Th>{t.kind}</Table.Th>
              <Table.Th>{t.entryAmount}</Table.Th>
              <Table.Th>{t.entryStore}</Table.Th>
              <Table.Th>{t.entryReceipt}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {p.ledger.map((e) => (
              <Table.Tr key={e.id}>
                <Table.Td>{formatDateTime(e.date_created)}</Table.Td>
                <Table.Td>{nameOf(e.currency)}</Table.Td>
                <Table.Td>{t.ledgerKind(e.kind)}</Table.Td>
                <Table.Td>{formatMovement(e.amount, codeOf(e.currency))}</Table.Td>
                {/* At central an owner sees where points were earned or spent across the chain. */}
                <Table.Td>{e.store_name ?? '—'}</Table.Td>
                <Table.Td>{e.receipt_number === null ? '—' : e.reverses === null ? e.receipt_number : t.receiptVoided(e.receipt_number)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </TableScroll>
    </Stack>
  );
}
