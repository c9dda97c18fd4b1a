import { Alert, Button, Fieldset, Group, Paper, Select, Stack, Table, Text, Textarea, TextInput, Title } from '@mantine/core';
import { type ReactNode, useEffect, useId, useRef, useState } from 'react';
import { roleAllows } from '../../../shared/staff-roles';
import { currencyDigits, formatMoney } from '../format';
import { NodeApiError } from '../api/client';
import { useLanguage } from '../i18n/language-store';
import { ActionsHeader, type FieldProblem, invalidProps, stackedTable } from './a11y';
import { adminFieldLabels, type FieldLabels, refusalText } from './node-refusal';
import type { ProgramOverview } from './admin-api';
import { adminStore, useAdmin } from './admin-store';
import { ProgramCountrySection } from './ProgramCountrySection';
import { ProgramLanguageSection } from './ProgramLanguageSection';
import { CurrencyRow, NotInForce, RewardRow, type Say, StatusToggle, TierRow, useEditRowFocus } from './ProgramEditRows';
import { escapeCancels } from './a11y';
import { useAdminStrings } from './strings';
import { WholeNumberInput } from './WholeNumberInput';
import { useLoad } from './use-load';
import { AmountInput } from './AmountInput';

const api = () => adminStore.getState().api();
const numberOrNull = (v: number | string) => (v === '' ? null : Number(v));

/** The loyalty currency's name as it is now ("Stars" once renamed): what points, costs and thresholds are counted in. */
const loyaltyUnit = (p: ProgramOverview): string | undefined => p.currencies.find((c) => c.code === null)?.name;
/** The name of the loyalty currency the tiers count (the program's setting): what thresholds are counted in. */
const tierUnit = (p: ProgramOverview): string | undefined => p.currencies.find((c) => c.id === p.settings.tier_currency)?.name;

/** The page's sections: each shows the outcome of what was done in it, under its own form. */
type Section = 'country' | 'language' | 'rules' | 'rewards' | 'tiers' | 'currencies' | 'expiry' | 'limits' | 'caps' | 'content';

/** The outcome of the last change made on the page, and the section it was made in. */
interface Outcome {
  section: Section;
  ok: boolean;
  text: string;
  /** A refusal's row (its id, or 'new': the add form) and the field the node named, marked invalid there. */
  item?: string;
  field?: string | null;
}

/**
 * A change's outcome in the section where it was made, under its form (as a store's or a webhook's
 * form shows its refusal): brought into view, clear of the page's fixed header, so a refusal of a
 * form low on a long page is never out of sight (a banner at the page's top was hidden under the
 * header, and Add seemed to do nothing).
 */
function SectionOutcome({ id, outcome, section, onClose }: { id: string; outcome: Outcome | null; section: Section; onClose(): void }) {
  const ref = useRef<HTMLDivElement>(null);
  const shown = outcome?.section === section ? outcome : null;
  useEffect(() => {
    if (shown) ref.current?.scrollIntoView?.({ block: 'nearest' });
  }, [shown]);
  if (!shown) return null;
  return (
    <Alert
      ref={ref}
      id={id}
      mt="sm"
      color={shown.ok ? 'teal' : 'red'}
      role={shown.ok ? 'status' : 'alert'}
      data-testid={`program-outcome-${section}`}
      // The AppShell header (60 px) is fixed over the page's top.
      style={{ scrollMarginTop: 76, scrollMarginBottom: 16 }}
      withCloseButton
      onClose={onClose}
    >
      {shown.text}
    </Alert>
  );
}

/** The program's country and language, currencies, earning rules, rewards, tiers, points expiry, offline caps and content pages; the node's messages as they come. */
export function ProgramScreen() {
  const t = useAdminStrings();
  const role = useAdmin((s) => s.staff?.role);
  const language = useLanguage();
  const program = useLoad(() => api().program(), []);
  const [message, setMessage] = useState<Outcome | null>(null);
  // The one outcome on the page: the field a refusal is about points at it.
  const outcomeId = useId();
  if (program.error)
    return (
      <Alert color="red" role="alert">
        {program.error}
      </Alert>
    );
  const p = program.data;
  if (!p || !role) return <Text>{t.loading}</Text>;
  const editable = p.editable && roleAllows(role, 'program.write');
  // The node's refusals name its fields; this page labels points, costs and thresholds by the currency.
  const unit = loyaltyUnit(p);
  const thresholdUnit = tierUnit(p);
  const labels: FieldLabels = {
    ...adminFieldLabels(language),
    ...(unit === undefined ? {} : { points: unit, cost: t.cost(unit) }),
    ...(thresholdUnit === undefined ? {} : { threshold: t.threshold(thresholdUnit) }),
  };
  // Each section's changes answer in that section (SectionOutcome); one answer on the page at a time.
  const sayIn =
    (section: Section): Say =>
    (work, item) => {
      setMessage(null);
      return work
        .then(() => {
          setMessage({ section, ok: true, text: t.saved });
          program.reload();
          return true;
        })
        .catch((e: unknown) => {
          setMessage({ section, ok: false, text: refusalText(e, labels), item, field: e instanceof NodeApiError ? e.field : null });
          return false;
        });
    };
  const props = (section: Section): SectionProps => ({
    p,
    editable,
    say: sayIn(section),
    outcome: <SectionOutcome id={outcomeId} outcome={message} section={section} onClose={() => setMessage(null)} />,
    problemFor: (item) => (message && !message.ok && message.section === section && message.item === item ? { messageId: outcomeId, field: message.field ?? null } : null),
  });
  const countrySection = props('country');
  const languageSection = props('language');
  return (
    <Stack>
      {!editable && <Text c="dimmed">{t.readOnly}</Text>}
      <ProgramCountrySection country={p.country} editable={editable} say={countrySection.say} outcome={countrySection.outcome} problem={countrySection.problemFor('country')} />
      <ProgramLanguageSection language={p.language} editable={editable} say={languageSection.say} outcome={languageSection.outcome} problem={languageSection.problemFor('language')} />
      <EarningRules {...props('rules')} />
      <Rewards {...props('rewards')} />
      <Tiers {...props('tiers')} />
      <Currencies {...props('currencies')} />
      <Expiry {...props('expiry')} />
      <PaymentLimits {...props('limits')} />
      <OfflineCaps {...props('caps')} />
      <ContentPages {...props('content')} />
    </Stack>
  );
}

type Currency = ProgramOverview['currencies'][number];

interface SectionProps {
  p: ProgramOverview;
  editable: boolean;
  say: Say;
  /** The outcome of a change made in this section, shown at its foot, under its form. */
  outcome: ReactNode;
  /** The refusal shown of a change to `item` (a row's id, or 'new'), to mark its field invalid. */
  problemFor(item: string): FieldProblem | null;
}

/** A section's table of program items, and under it (for editors) the form that adds one. */
function ItemTable({ title, columns, rows, addForm, outcome }: { title: string; columns: string[]; rows: ReactNode; addForm: ReactNode; outcome: ReactNode }) {
  return (
    <Paper withBorder p="md">
      <Title order={2} size="h4">{title}</Title>
      <Table aria-label={title} className={stackedTable}>
        <Table.Thead>
          <Table.Tr>
            {columns.map((column, i) => (
              <Table.Th key={i}>{column}</Table.Th>
            ))}
            <ActionsHeader />
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>{rows}</Table.Tbody>
      </Table>
      {addForm}
      {outcome}
    </Paper>
  );
}

/** The form that adds an item: its fields are emptied once the node took it (a refusal keeps them to mend). */
function AddItemForm({ legend, add, clear, children }: { legend: string; add(): Promise<boolean>; clear: Array<(value: '') => void>; children: ReactNode }) {
  const t = useAdminStrings();
  return (
    <Fieldset legend={legend} variant="unstyled" mt="sm">
      <Group align="end">
        {children}
        <Button variant="light" onClick={() => void add().then((ok) => ok && clear.forEach((empty) => empty('')))}>
          {t.add}
        </Button>
      </Group>
    </Fieldset>
  );
}

function EarningRuleRow({ rule, currency, editable, say, problem }: { rule: ProgramOverview['earning_rules'][number]; currency: Currency | undefined; editable: boolean; say: Say; problem: FieldProblem | null }) {
  const t = useAdminStrings();
  const [points, setPoints] = useState<number | string>(rule.points);
  const [perAmount, setPerAmount] = useState<number | string>(rule.per_amount);
  useEffect(() => {
    setPoints(rule.points);
    setPerAmount(rule.per_amount);
  }, [rule.points, rule.per_amount]);
  // Rename: the name (e.g. "1 point per unit spent") said what the rule gives; changed with it, it stays true.
  const [name, setName] = useState<string | null>(null);
  const focus = useEditRowFocus(name !== null);
  const save = () =>
    void say(api().saveProgramItem('earning-rules', rule.id, { ...(name === null ? {} : { name }), points: Number(points), per_amount: Number(perAmount) }), rule.id).then((ok) => ok && setName(null));
  // Named by the rule's currency as it is now ("Stars"), as the column is.
  const unit = currency?.name ?? t.points;
  return (
    <Table.Tr aria-label={rule.name} onKeyDown={name === null ? undefined : escapeCancels(() => setName(null))}>
      <Table.Td data-label={t.name}>
        {name === null ? rule.name : <TextInput aria-label={t.rowField(t.name, rule.name)} value={name} onChange={(e) => setName(e.currentTarget.value)} {...invalidProps(problem, 'name', focus.field)} />}
      </Table.Td>
      <Table.Td data-label={unit}>
        <WholeNumberInput aria-label={t.rowField(unit, rule.name)} value={points} onChange={setPoints} disabled={!editable} w={110} {...invalidProps(problem, 'points')} />
      </Table.Td>
      <Table.Td data-label={t.perAmount}>
        <AmountInput currency={null} aria-label={t.rowField(t.perAmount, rule.name)} value={perAmount} onChange={setPerAmount} disabled={!editable} w={130} {...invalidProps(problem, 'per_amount')} />
      </Table.Td>
      <Table.Td data-label={t.status}>
        <Group gap="xs">
          {t[`programStatus_${rule.status}`]}
          <NotInForce status={rule.status} currency={currency} />
        </Group>
      </Table.Td>
      <Table.Td>
        {editable && (
          <Group gap="xs">
            <Button size="xs" aria-label={t.rowAction(t.save, rule.name)} onClick={save}>
              {t.save}
            </Button>
            {name === null ? (
              <Button ref={focus.button} size="xs" variant="subtle" aria-label={t.rowAction(t.rename, rule.name)} onClick={() => setName(rule.name)}>
                {t.rename}
              </Button>
            ) : (
              <Button size="xs" variant="default" aria-label={t.rowAction(t.cancel, rule.name)} onClick={() => setName(null)}>
                {t.cancel}
              </Button>
            )}
            <StatusToggle kind="earning-rules" id={rule.id} name={rule.name} status={rule.status} editable={editable} say={say} />
          </Group>
        )}
      </Table.Td>
    </Table.Tr>
  );
}

function EarningRules({ p, editable, say, outcome, problemFor }: SectionProps) {
  const t = useAdminStrings();
  const [name, setName] = useState('');
  const [points, setPoints] = useState<number | string>('');
  const [perAmount, setPerAmount] = useState<number | string>('');
  const loyalty = p.currencies.find((c) => c.code === null);
  // Rules give points of the loyalty currency: the column says which, by its name as renamed ("Stars").
  const unit = loyalty?.name ?? t.points;
  const add = () => say(api().saveProgramItem('earning-rules', null, { name, currency: loyalty?.id ?? '', points: Number(points), per_amount: Number(perAmount) }), 'new');
  return (
    <ItemTable
      title={t.earningRulesTable}
      columns={[t.name, unit, t.perAmount, t.status]}
      rows={p.earning_rules.map((rule) => (
        <EarningRuleRow key={rule.id} rule={rule} currency={p.currencies.find((c) => c.id === rule.currency)} editable={editable} say={say} problem={problemFor(rule.id)} />
      ))}
      addForm={
        editable && (
          <AddItemForm legend={t.newRule} add={add} clear={[setName, setPoints, setPerAmount]}>
            <TextInput label={t.name} value={name} onChange={(e) => setName(e.currentTarget.value)} {...invalidProps(problemFor('new'), 'name')} />
            <WholeNumberInput label={unit} value={points} onChange={setPoints} w={110} {...invalidProps(problemFor('new'), 'points')} />
            <AmountInput currency={null} label={t.perAmount} value={perAmount} onChange={setPerAmount} w={140} {...invalidProps(problemFor('new'), 'per_amount')} />
          </AddItemForm>
        )
      }
      outcome={outcome}
    />
  );
}

function Rewards({ p, editable, say, outcome, problemFor }: SectionProps) {
  const t = useAdminStrings();
  const [name, setName] = useState('');
  const [cost, setCost] = useState<number | string>('');
  const loyalty = p.currencies.find((c) => c.code === null);
  // Costs are in the loyalty currency: its own name, as renamed ("Cost (Stars)").
  const unit = loyaltyUnit(p) ?? t.pointsUnit;
  const add = () => say(api().saveProgramItem('rewards', null, { name, cost: Number(cost), currency: loyalty?.id ?? '' }), 'new');
  return (
    <ItemTable
      title={t.rewardsTable}
      columns={[t.name, t.cost(unit), t.status]}
      rows={p.rewards.map((r) => (
        <RewardRow key={r.id} reward={r} currency={p.currencies.find((c) => c.id === r.currency)} editable={editable} say={say} problem={problemFor(r.id)} />
      ))}
      addForm={
        editable && (
          <AddItemForm legend={t.newReward} add={add} clear={[setName, setCost]}>
            <TextInput label={t.name} value={name} onChange={(e) => setName(e.currentTarget.value)} {...invalidProps(problemFor('new'), 'name')} />
            <WholeNumberInput label={t.cost(unit)} value={cost} onChange={setCost} w={130} {...invalidProps(problemFor('new'), 'cost')} />
          </AddItemForm>
        )
      }
      outcome={outcome}
    />
  );
}

function Tiers({ p, editable, say, outcome, problemFor }: SectionProps) {
  const t = useAdminStrings();
  const [name, setName] = useState('');
  const [threshold, setThreshold] = useState<number | string>('');
  // Empty is all time, as the engine's default and an edited tier's empty window say.
  const [windowDays, setWindowDays] = useState<number | string>('');
  const unit = tierUnit(p) ?? t.pointsUnit;
  const add = () => say(api().saveProgramItem('tiers', null, { name, threshold: Number(threshold), window_days: numberOrNull(windowDays) }), 'new');
  return (
    <ItemTable
      title={t.tiersTable}
      columns={[t.name, t.threshold(unit), t.windowDays]}
      rows={p.tiers.map((tier) => (
        <TierRow key={tier.id} tier={tier} unit={unit} editable={editable} say={say} problem={problemFor(tier.id)} />
      ))}
      addForm={
        <>
          <TierCurrencyChoice p={p} editable={editable} say={say} problemFor={problemFor} />
          {editable && (
            <AddItemForm legend={t.newTier} add={add} clear={[setName, setThreshold, setWindowDays]}>
              <TextInput label={t.name} value={name} onChange={(e) => setName(e.currentTarget.value)} {...invalidProps(problemFor('new'), 'name')} />
              <WholeNumberInput label={t.threshold(unit)} value={threshold} onChange={setThreshold} w={150} {...invalidProps(problemFor('new'), 'threshold')} />
              <WholeNumberInput label={t.windowDays} placeholder={t.allTime} value={windowDays} onChange={setWindowDays} w={130} {...invalidProps(problemFor('new'), 'window_days')} />
            </AddItemForm>
          )}
        </>
      }
      outcome={outcome}
    />
  );
}

/**
 * Which loyalty currency the tiers count, shown once the program has several (one ladder, one
 * measure: other currencies' points move nobody up). Editors choose among the active ones.
 */
function TierCurrencyChoice({ p, editable, say, problemFor }: Omit<SectionProps, 'outcome'>) {
  const t = useAdminStrings();
  const [chosen, setChosen] = useState<string | null>(p.settings.tier_currency);
  const loyalty = p.currencies.filter((c) => c.code === null);
  const counted = tierUnit(p);
  if (loyalty.length < 2 || counted === undefined) return null;
  const choices = loyalty.filter((c) => c.status === 'ACTIVE' || c.id === p.settings.tier_currency).map((c) => ({ value: c.id, label: c.name }));
  return (
    <Fieldset legend={t.tierCurrency} variant="unstyled" mt="sm">
      <Text size="sm">{t.tiersCount(counted)}</Text>
      {editable && (
        <Group align="end" mt="xs">
          <Select
            label={t.currency}
            value={chosen}
            onChange={setChosen}
            data={choices}
            allowDeselect={false}
            w={220}
            {...invalidProps(problemFor('tier_currency'), 'tier_currency')}
          />
          <Button variant="light" disabled={chosen === p.settings.tier_currency} onClick={() => void say(api().saveSettings({ tier_currency: chosen }), 'tier_currency')}>
            {t.save}
          </Button>
        </Group>
      )}
    </Fieldset>
  );
}

function Currencies({ p, editable, say, outcome, problemFor }: SectionProps) {
  const t = useAdminStrings();
  const [name, setName] = useState('');
  const [code, setCode] = useState('');
  const add = () => say(api().saveProgramItem('currencies', null, { name, code: code.trim() === '' ? null : code }), 'new');
  return (
    <ItemTable
      title={t.currenciesTable}
      columns={[t.name, t.codeColumn, t.status]}
      rows={p.currencies.map((c) => (
        <CurrencyRow
          key={c.id}
          currency={c}
          editable={editable}
          say={say}
          problem={problemFor(c.id)}
          confirm={{ title: t.confirmPauseCurrency(c.name), lines: (c.id === p.quick_pay_currency ? t.pauseQuickPayEffects(c.name) : t.pauseLoyaltyEffects(c.name)).split('\n') }}
        />
      ))}
      addForm={
        editable && (
          <AddItemForm legend={t.newCurrency} add={add} clear={[setName, setCode]}>
            <TextInput label={t.name} value={name} onChange={(e) => setName(e.currentTarget.value)} {...invalidProps(problemFor('new'), 'name')} />
            <TextInput label={t.code} value={code} onChange={(e) => setCode(e.currentTarget.value)} w={200} maw="100%" {...invalidProps(problemFor('new'), 'code')} />
          </AddItemForm>
        )
      }
      outcome={outcome}
    />
  );
}

function Expiry({ p, editable, say, outcome }: SectionProps) {
  const t = useAdminStrings();
  const [days, setDays] = useState<number | string>(p.settings.points_expiry_days ?? '');
  return (
    <Paper withBorder p="md">
      <Title order={2} size="h4">{t.expiryTitle}</Title>
      <Group align="end">
        <WholeNumberInput label={t.expiryDays} value={days} onChange={setDays} disabled={!editable} w={360} maw="100%" />
        {editable && <Button onClick={() => void say(api().saveSettings({ points_expiry_days: numberOrNull(days) }))}>{t.save}</Button>}
      </Group>
      {outcome}
    </Paper>
  );
}

const LIMIT_FIELDS = ['egift_max_amount', 'reload_max_amount'] as const;
type LimitField = (typeof LIMIT_FIELDS)[number];
const LIMIT_LABELS = { egift_max_amount: 'egiftMax', reload_max_amount: 'reloadMax' } as const;

/**
 * The largest eGift and the largest reload: typed and shown in the quick-pay currency's units, as the
 * offline caps are, and sent in minor units; empty sends null (the default, shown as the placeholder).
 * Without quick pay there is nothing to limit.
 */
function PaymentLimits({ p, editable, say, outcome }: SectionProps) {
  const t = useAdminStrings();
  const language = useLanguage();
  const code = p.currencies.find((c) => c.id === p.quick_pay_currency)?.code ?? null;
  const digits = currencyDigits(code);
  const shown = (minor: number | null) => (minor === null ? '' : minor / 10 ** digits);
  const [values, setValues] = useState<Record<LimitField, number | string>>(() => ({
    egift_max_amount: shown(p.settings.egift_max_amount),
    reload_max_amount: shown(p.settings.reload_max_amount),
  }));
  if (!code) return null;
  const defaults = { egift_max_amount: p.settings.egift_max_amount_default, reload_max_amount: p.settings.reload_max_amount_default };
  const minorOf = (f: LimitField): number | null => (values[f] === '' ? null : Math.round(Number(values[f]) * 10 ** digits));
  // Said here rather than by the node, whose refusal counts minor units: finer than the currency, or
  // below the smallest eGift (one major unit) or reload (one minor unit).
  const problemOf = (f: LimitField): string | undefined => {
    const minor = minorOf(f);
    if (minor === null) return undefined;
    if (Math.abs(minor - Number(values[f]) * 10 ** digits) > 1e-6) return t.capDecimals(t[LIMIT_LABELS[f]], digits);
    const least = f === 'egift_max_amount' ? 10 ** digits : 1;
    return minor < least ? t.limitAtLeast(t[LIMIT_LABELS[f]], formatMoney(least / 10 ** digits, code, language, p.country)) : undefined;
  };
  const blocked = LIMIT_FIELDS.some((f) => problemOf(f) !== undefined);
  return (
    <Paper withBorder p="md" aria-label={t.limitsTitle}>
      <Title order={2} size="h4">{t.limitsTitle}</Title>
      <Text mb="sm">{t.limitsHelp}</Text>
      <Group align="end">
        {LIMIT_FIELDS.map((f) => (
          <AmountInput
            currency={code}
            key={f}
            label={t.capIn(t[LIMIT_LABELS[f]], code)}
            placeholder={t.limitDefault(formatMoney(defaults[f] / 10 ** digits, code, language, p.country))}
            value={values[f]}
            onChange={(v) => setValues({ ...values, [f]: v })}
            allowDecimal={digits > 0}
            allowNegative={false}
            error={problemOf(f)}
            disabled={!editable}
            w={260}
            maw="100%"
          />
        ))}
        {editable && (
          <Button disabled={blocked} onClick={() => void say(api().saveSettings({ egift_max_amount: minorOf('egift_max_amount'), reload_max_amount: minorOf('reload_max_amount') }))}>
            {t.save}
          </Button>
        )}
      </Group>
      {outcome}
    </Paper>
  );
}

const CAP_FIELDS = ['quick_pay_per_order', 'quick_pay_per_day', 'points_per_order', 'points_per_day'] as const;
type CapField = (typeof CAP_FIELDS)[number];
const CAP_LABELS = { quick_pay_per_order: 'quickPayPerOrder', quick_pay_per_day: 'quickPayPerDay', points_per_order: 'pointsPerOrder', points_per_day: 'pointsPerDay' } as const;

/**
 * Quick pay's caps are typed and shown in the currency's units (12.50 USD), as the balance
 * adjustment is, and sent in minor units; points' caps are whole points.
 */
function OfflineCaps({ p, editable, say, outcome }: SectionProps) {
  const t = useAdminStrings();
  const caps = p.offline_caps;
  const code = p.currencies.find((c) => c.id === p.quick_pay_currency)?.code ?? null;
  const digitsOf = (f: CapField) => (f.startsWith('quick_pay') && code ? currencyDigits(code) : 0);
  const shownOf = (f: CapField) => {
    const minor = caps[f];
    return minor === null || minor === undefined ? '' : minor / 10 ** digitsOf(f);
  };
  const [values, setValues] = useState<Record<string, number | string>>(() => Object.fromEntries(CAP_FIELDS.map((f) => [f, shownOf(f)])));
  const canEdit = editable && caps.apply === 'set_here';
  const labelOf = (f: CapField) => (f.startsWith('quick_pay') && code ? t.capIn(t[CAP_LABELS[f]], code) : t[CAP_LABELS[f]]);
  const minorOf = (f: CapField): number | null => {
    const v = values[f] ?? '';
    return v === '' ? null : Math.round(Number(v) * 10 ** digitsOf(f));
  };
  // A value finer than the currency (12.345 USD) would be rounded silently: said instead.
  const tooFine = CAP_FIELDS.find((f) => {
    const v = values[f] ?? '';
    return v !== '' && Math.abs((minorOf(f) ?? 0) - Number(v) * 10 ** digitsOf(f)) > 1e-6;
  });
  return (
    <Paper withBorder p="md" aria-label={t.capsTitle}>
      <Title order={2} size="h4">{t.capsTitle}</Title>
      <Text mb="sm">{t[`caps_${caps.apply}`]}</Text>
      {caps.apply !== 'not_applicable' && (
        <Group align="end">
          {CAP_FIELDS.map((f) => (
            <AmountInput
              currency={f.startsWith('quick_pay') ? code : null}
              key={f}
              label={labelOf(f)}
              placeholder={t.noCap}
              value={values[f]}
              onChange={(v) => setValues({ ...values, [f]: v })}
              allowDecimal
              allowNegative={false}
              error={f === tooFine ? t.capDecimals(t[CAP_LABELS[f]], digitsOf(f)) : undefined}
              disabled={!canEdit}
              w={230}
              maw="100%"
            />
          ))}
          {canEdit && (
            <Button disabled={tooFine !== undefined} onClick={() => void say(api().saveOfflineCaps(Object.fromEntries(CAP_FIELDS.map((f) => [f, minorOf(f)]))))}>
              {t.save}
            </Button>
          )}
        </Group>
      )}
      {outcome}
    </Paper>
  );
}

function ContentPages({ p, editable, say, outcome }: SectionProps) {
  const t = useAdminStrings();
  const [slug, setSlug] = useState('terms-of-service');
  const [language, setLanguage] = useState('en');
  const page = p.content.find((c) => c.slug === slug && c.language === language);
  const [title, setTitle] = useState(page?.title ?? '');
  const [content, setContent] = useState(page?.content ?? '');
  useEffect(() => {
    setTitle(page?.title ?? '');
    setContent(page?.content ?? '');
  }, [page?.title, page?.content]);
  const slugLabel = { 'terms-of-service': t.slug_terms_of_service, 'privacy-policy': t.slug_privacy_policy, faq: t.slug_faq } as Record<string, string>;
  return (
    <Paper withBorder p="md">
      <Title order={2} size="h4">{t.contentTitle}</Title>
      <Group align="end">
        <Select label={t.page} value={slug} onChange={(v) => v && setSlug(v)} data={Object.entries(slugLabel).map(([value, label]) => ({ value, label }))} allowDeselect={false} />
        <Select label={t.language} value={language} onChange={(v) => v && setLanguage(v)} data={['en', 'es']} allowDeselect={false} w={100} />
        <TextInput label={t.pageTitle} value={title} onChange={(e) => setTitle(e.currentTarget.value)} disabled={!editable} w={320} maw="100%" />
      </Group>
      <Textarea label={t.pageContent} value={content} onChange={(e) => setContent(e.currentTarget.value)} disabled={!editable} autosize minRows={3} maxRows={8} mt="sm" />
      {editable && (
        <Button mt="sm" onClick={() => void say(api().saveContent(slug, { language, title, content }))}>
          {t.save}
        </Button>
      )}
      {outcome}
    </Paper>
  );
}
