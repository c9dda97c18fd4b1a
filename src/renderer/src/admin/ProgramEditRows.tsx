import { Badge, Button, Group, List, Modal, Select, Table, Text, TextInput } from '@mantine/core';
import { useEffect, useRef, useState } from 'react';
import { escapeCancels, type FieldProblem, invalidProps } from './a11y';
import type { ProgramOverview } from './admin-api';
import { adminStore } from './admin-store';
import { useAdminStrings } from './strings';
import { WholeNumberInput } from './WholeNumberInput';

/**
 * Runs a change, shows its outcome and reloads; resolves true when the node took it. `item` (a row's
 * id, or 'new' for the section's add form) is where a refusal's field is marked invalid.
 */
export interface Say {
  (work: Promise<unknown>, item?: string): Promise<boolean>;
}
const api = () => adminStore.getState().api();
const numberOrNull = (v: number | string) => (v === '' ? null : Number(v));

/** What pausing asks first: a title, and the lines saying what the pause stops. */
export interface PauseConfirmation {
  title: string;
  lines: string[];
}

/**
 * Pauses an active rule, reward or currency, or makes a paused one active again. With `confirm`
 * (a currency: pausing it stops everything priced or earned in it), pausing asks first and says what
 * it stops; activating never asks.
 */
export function StatusToggle({ kind, id, name, status, editable, say, confirm }: { kind: string; id: string; name: string; status: string; editable: boolean; say: Say; confirm?: PauseConfirmation }) {
  const t = useAdminStrings();
  const [confirming, setConfirming] = useState(false);
  if (!editable || status === 'ARCHIVED') return null;
  const active = status === 'ACTIVE';
  const change = () => {
    setConfirming(false);
    void say(api().saveProgramItem(kind, id, { status: active ? 'INACTIVE' : 'ACTIVE' }));
  };
  return (
    <>
      <Button size="xs" variant="light" color={active ? 'orange' : 'teal'} aria-label={t.rowAction(active ? t.pause : t.activate, name)} onClick={() => (active && confirm ? setConfirming(true) : change())}>
        {active ? t.pause : t.activate}
      </Button>
      {confirm && (
        <Modal opened={confirming} onClose={() => setConfirming(false)} title={confirm.title}>
          <List mb="md" spacing="xs">
            {confirm.lines.map((line) => (
              <List.Item key={line}>{line}</List.Item>
            ))}
          </List>
          <Text mb="lg">{t.pauseKeepsBalances}</Text>
          <Group justify="flex-end">
            {/* Every confirmation opens on Cancel: Enter on it changes nothing. */}
            <Button variant="default" data-autofocus onClick={() => setConfirming(false)}>
              {t.cancel}
            </Button>
            <Button color="orange" onClick={change}>
              {t.yesPause}
            </Button>
          </Group>
        </Modal>
      )}
    </>
  );
}

/**
 * Focus in a row edited in place: the first field when editing starts, and the row's Edit (or
 * Rename) button when it ends — Save and Cancel go away with the editing, and the focus went with
 * them to the page's top. A focus that is somewhere on purpose is left there.
 */
export function useEditRowFocus(editing: boolean) {
  const field = useRef<HTMLInputElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const was = useRef(editing);
  useEffect(() => {
    if (was.current === editing) return;
    was.current = editing;
    if (editing) field.current?.focus();
    else if (!document.activeElement || document.activeElement === document.body) button.current?.focus();
  }, [editing]);
  return { field, button };
}

type Currency = ProgramOverview['currencies'][number];

/** The statuses of currencies, earning rules and rewards, as the node writes them (shown in words: t.programStatus_…). */
export const PROGRAM_STATUSES = ['ACTIVE', 'INACTIVE', 'ARCHIVED'] as const;

/**
 * Beside an active earning rule or reward whose currency is paused or archived: the engine then
 * earns nothing by the rule and redeems nothing of the reward, whatever their own status says.
 */
export function NotInForce({ status, currency }: { status: string; currency: Currency | undefined }) {
  const t = useAdminStrings();
  if (status !== 'ACTIVE' || !currency || currency.status === 'ACTIVE') return null;
  return (
    <Badge color="orange" variant="light" data-testid="not-in-force" style={{ textTransform: 'none' }}>
      {currency.status === 'ARCHIVED' ? t.notInForceArchived(currency.name) : t.notInForcePaused(currency.name)}
    </Badge>
  );
}

type Reward = ProgramOverview['rewards'][number];
type Tier = ProgramOverview['tiers'][number];

/** A reward: shown as it is, or (Edit) its name, cost and status in place, saved through the node's checks. */
export function RewardRow({ reward, currency, editable, say, problem }: { reward: Reward; currency: Currency | undefined; editable: boolean; say: Say; problem: FieldProblem | null }) {
  const t = useAdminStrings();
  const [editing, setEditing] = useState(false);
  const [name, setName] = useState(reward.name);
  const [cost, setCost] = useState<number | string>(reward.cost);
  const [status, setStatus] = useState<string>(reward.status);
  const focus = useEditRowFocus(editing);
  const start = () => {
    setName(reward.name);
    setCost(reward.cost);
    setStatus(reward.status);
    setEditing(true);
  };
  const save = () => void say(api().saveProgramItem('rewards', reward.id, { name, cost: Number(cost), status }), reward.id).then((ok) => ok && setEditing(false));
  const statuses = PROGRAM_STATUSES.map((value) => ({ value, label: t[`programStatus_${value}`] }));
  const costLabel = t.cost(currency?.name ?? t.pointsUnit);
  if (editing)
    return (
      <Table.Tr aria-label={reward.name} onKeyDown={escapeCancels(() => setEditing(false))}>
        <Table.Td data-label={t.name}>
          <TextInput aria-label={t.rowField(t.name, reward.name)} value={name} onChange={(e) => setName(e.currentTarget.value)} {...invalidProps(problem, 'name', focus.field)} />
        </Table.Td>
        <Table.Td data-label={costLabel}>
          <WholeNumberInput aria-label={t.rowField(costLabel, reward.name)} value={cost} onChange={setCost} w={120} {...invalidProps(problem, 'cost')} />
        </Table.Td>
        <Table.Td data-label={t.status}>
          <Select aria-label={t.rowField(t.status, reward.name)} value={status} onChange={(v) => v && setStatus(v)} data={statuses} allowDeselect={false} w={140} />
        </Table.Td>
        <Table.Td>
          <EditButtons row={reward.name} onSave={save} onCancel={() => setEditing(false)} />
        </Table.Td>
      </Table.Tr>
    );
  return (
    <Table.Tr aria-label={reward.name}>
      <Table.Td data-label={t.name}>{reward.name}</Table.Td>
      <Table.Td data-label={costLabel}>{reward.cost}</Table.Td>
      <Table.Td data-label={t.status}>
        <Group gap="xs">
          {t[`programStatus_${reward.status}`]}
          <NotInForce status={reward.status} currency={currency} />
        </Group>
      </Table.Td>
      <Table.Td>
        {editable && (
          <Group gap="xs">
            <Button ref={focus.button} size="xs" variant="subtle" aria-label={t.rowAction(t.edit, reward.name)} onClick={start}>
              {t.edit}
            </Button>
            <StatusToggle kind="rewards" id={reward.id} name={reward.name} status={reward.status} editable={editable} say={say} />
          </Group>
        )}
      </Table.Td>
    </Table.Tr>
  );
}

/** A tier: shown as it is, or (Edit) its name, threshold and window in place. Tiers have no status in the engine. */
export function TierRow({ tier, unit, editable, say, problem }: { tier: Tier; unit: string; editable: boolean; say: Say; problem: FieldProblem | null }) {
  const t = useAdminStrings();
  const [editing, setEditing] = useState(false);
  const [name, setName] = useState(tier.name);
  const [threshold, setThreshold] = useState<number | string>(tier.threshold);
  const [windowDays, setWindowDays] = useState<number | string>(tier.window_days ?? '');
  const focus = useEditRowFocus(editing);
  const start = () => {
    setName(tier.name);
    setThreshold(tier.threshold);
    setWindowDays(tier.window_days ?? '');
    setEditing(true);
  };
  const save = () =>
    void say(api().saveProgramItem('tiers', tier.id, { name, threshold: Number(threshold), window_days: numberOrNull(windowDays) }), tier.id).then((ok) => ok && setEditing(false));
  if (editing)
    return (
      <Table.Tr aria-label={tier.name} onKeyDown={escapeCancels(() => setEditing(false))}>
        <Table.Td data-label={t.name}>
          <TextInput aria-label={t.rowField(t.name, tier.name)} value={name} onChange={(e) => setName(e.currentTarget.value)} {...invalidProps(problem, 'name', focus.field)} />
        </Table.Td>
        <Table.Td data-label={t.threshold(unit)}>
          <WholeNumberInput aria-label={t.rowField(t.threshold(unit), tier.name)} value={threshold} onChange={setThreshold} w={150} {...invalidProps(problem, 'threshold')} />
        </Table.Td>
        <Table.Td data-label={t.windowDays}>
          <WholeNumberInput aria-label={t.rowField(t.windowDays, tier.name)} placeholder={t.allTime} value={windowDays} onChange={setWindowDays} w={130} {...invalidProps(problem, 'window_days')} />
        </Table.Td>
        <Table.Td>
          <EditButtons row={tier.name} onSave={save} onCancel={() => setEditing(false)} />
        </Table.Td>
      </Table.Tr>
    );
  return (
    <Table.Tr aria-label={tier.name}>
      <Table.Td data-label={t.name}>{tier.name}</Table.Td>
      <Table.Td data-label={t.threshold(unit)}>{tier.threshold}</Table.Td>
      <Table.Td data-label={t.windowDays}>{tier.window_days ?? '—'}</Table.Td>
      <Table.Td>
        {editable && (
          <Button ref={focus.button} size="xs" variant="subtle" aria-label={t.rowAction(t.edit, tier.name)} onClick={start}>
            {t.edit}
          </Button>
        )}
      </Table.Td>
    </Table.Tr>
  );
}

/**
 * A currency: shown as it is, or edited in place — its name (Rename), the name customers read on
 * their balances, and for a money currency (Edit) its ISO code too: `init` makes quick pay in USD
 * unless told otherwise, and the node lets the code change until money exists in it (409
 * `currency_in_use` says why after that). The code is sent only when changed, so a rename never
 * meets that refusal. A loyalty currency gets no code here. Pausing asks first (StatusToggle).
 */
export function CurrencyRow({ currency, editable, say, confirm, problem }: { currency: Currency; editable: boolean; say: Say; confirm: PauseConfirmation; problem: FieldProblem | null }) {
  const t = useAdminStrings();
  const [editing, setEditing] = useState(false);
  const [name, setName] = useState(currency.name);
  const [code, setCode] = useState(currency.code ?? '');
  const focus = useEditRowFocus(editing);
  const money = currency.code !== null;
  const start = () => {
    setName(currency.name);
    setCode(currency.code ?? '');
    setEditing(true);
  };
  const changes = money && code.trim() !== currency.code ? { name, code: code.trim() } : { name };
  const save = () => void say(api().saveProgramItem('currencies', currency.id, changes), currency.id).then((ok) => ok && setEditing(false));
  return (
    <Table.Tr aria-label={currency.name} onKeyDown={editing ? escapeCancels(() => setEditing(false)) : undefined}>
      <Table.Td data-label={t.name}>
        {editing ? <TextInput aria-label={t.rowField(t.name, currency.name)} value={name} onChange={(e) => setName(e.currentTarget.value)} {...invalidProps(problem, 'name', focus.field)} /> : currency.name}
      </Table.Td>
      <Table.Td data-label={t.codeColumn}>
        {editing && money ? (
          <TextInput aria-label={t.rowField(t.codeColumn, currency.name)} maxLength={3} w={90} value={code} onChange={(e) => setCode(e.currentTarget.value.toUpperCase())} {...invalidProps(problem, 'code')} />
        ) : (
          (currency.code ?? '—')
        )}
      </Table.Td>
      <Table.Td data-label={t.status}>{t[`programStatus_${currency.status}`]}</Table.Td>
      <Table.Td>
        {editing ? (
          <EditButtons row={currency.name} onSave={save} onCancel={() => setEditing(false)} />
        ) : (
          editable && (
            <Group gap="xs">
              <Button ref={focus.button} size="xs" variant="subtle" aria-label={t.rowAction(money ? t.edit : t.rename, currency.name)} onClick={start}>
                {money ? t.edit : t.rename}
              </Button>
              <StatusToggle kind="currencies" id={currency.id} name={currency.name} status={currency.status} editable={editable} say={say} confirm={confirm} />
            </Group>
          )
        )}
      </Table.Td>
    </Table.Tr>
  );
}

/** Save and Cancel of the row named `row` (their names say which row: every row has them). */
function EditButtons({ row, onSave, onCancel }: { row: string; onSave: () => void; onCancel: () => void }) {
  const t = useAdminStrings();
  return (
    <Group gap="xs">
      <Button size="xs" aria-label={t.rowAction(t.save, row)} onClick={onSave}>
        {t.save}
      </Button>
      <Button size="xs" variant="default" aria-label={t.rowAction(t.cancel, row)} onClick={onCancel}>
        {t.cancel}
      </Button>
    </Group>
  );
}
