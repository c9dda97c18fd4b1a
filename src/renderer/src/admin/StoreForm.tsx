import { Alert, Button, Group, Modal, Select, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { useMemo, useState } from 'react';
import { refusalText } from './node-refusal';
import type { AdminStore, StoreDetails } from './admin-api';
import { adminStore } from './admin-store';
import { useProgramCountry } from './program-country';
import { useAdminStrings } from './strings';

export const WEEK_DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
type Day = (typeof WEEK_DAYS)[number];

interface Draft {
  name: string;
  address: string;
  city: string;
  region: string;
  postalCode: string;
  country: string;
  phone: string;
  timeZone: string;
  status: 'active' | 'inactive';
  hours: Record<Day, string>;
}

/**
 * A new store starts in the program's country and the browser's time zone (the merchant usually
 * sets a store up from where it is): UTC made its hours and "open now" read hours off.
 */
function newStoreDefaults(country: string | null): Pick<Draft, 'country' | 'timeZone'> {
  return { country: country ?? '', timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC' };
}

function draftOf(store: AdminStore | null, country: string | null): Draft {
  const fresh = newStoreDefaults(country);
  return {
    name: store?.name ?? '',
    address: store?.address ?? '',
    city: store?.city ?? '',
    region: store?.region ?? '',
    postalCode: store?.postal_code ?? '',
    country: store?.country ?? fresh.country,
    phone: store?.phone ?? '',
    timeZone: store?.time_zone ?? fresh.timeZone,
    status: store?.status ?? 'active',
    // A day a store with hours leaves out is closed; a store with no hours has every day empty.
    hours: Object.fromEntries(WEEK_DAYS.map((day) => [day, store?.hours ? (store.hours[day] ?? 'closed') : ''])) as Record<Day, string>,
  };
}

/** What the node refuses a store without: checked before sending, so every missing one is marked at once. */
const REQUIRED = ['name', 'address', 'city', 'country'] as const;
type RequiredField = (typeof REQUIRED)[number];

const orNull = (text: string) => (text.trim() === '' ? null : text.trim());

/** Empty days are closed; every day empty means no hours at all. */
function detailsOf(draft: Draft): StoreDetails {
  const days = WEEK_DAYS.filter((day) => draft.hours[day].trim() !== '');
  return {
    name: draft.name,
    address: draft.address,
    city: draft.city,
    region: orNull(draft.region),
    postal_code: orNull(draft.postalCode),
    country: draft.country.trim().toUpperCase(),
    phone: orNull(draft.phone),
    time_zone: draft.timeZone,
    status: draft.status,
    hours: days.length === 0 ? null : Object.fromEntries(days.map((day) => [day, draft.hours[day].trim()])),
  };
}

/** The IANA zones the browser knows, with UTC and the store's own (a zone the browser lacks stays choosable). */
function timeZones(current: string): string[] {
  const zones = new Set(Intl.supportedValuesOf('timeZone'));
  zones.add('UTC');
  zones.add(current);
  return [...zones].sort();
}

/**
 * A store's details in a dialog: **Add a store** (no `store`) or **Edit details** of one. Saved
 * with `POST /backoffice/stores` or `PUT /backoffice/stores/:id`, so the node's checks are the only
 * ones (a required field, a country code, a phone in the store's country, hours per day, a time
 * zone), but for the required fields, each marked before sending when empty; a refusal shows in the dialog with the node's message and keeps what was typed. A paired
 * store refuses every change (409 `stores_managed_by_central`: stores are central's).
 */
export function StoreFormButton({ store, onSaved }: { store: AdminStore | null; onSaved: (saved: AdminStore) => void }) {
  const t = useAdminStrings();
  const [open, setOpen] = useState(false);
  const country = useProgramCountry();
  const [draft, setDraft] = useState<Draft>(() => draftOf(store, country));
  const [error, setError] = useState<string | null>(null);
  const [missing, setMissing] = useState<ReadonlySet<RequiredField>>(new Set());
  const [busy, setBusy] = useState(false);
  const zones = useMemo(() => timeZones(draft.timeZone), [draft.timeZone]);
  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => {
    setDraft((d) => ({ ...d, [key]: value }));
    if ((REQUIRED as readonly string[]).includes(key)) setMissing((m) => new Set([...m].filter((k) => k !== key)));
  };
  const requiredError = (key: RequiredField, label: string) => (missing.has(key) ? t.fieldRequired(label) : undefined);
  const setHours = (day: Day, value: string) => setDraft((d) => ({ ...d, hours: { ...d.hours, [day]: value } }));
  const start = () => {
    setDraft(draftOf(store, country));
    setError(null);
    setMissing(new Set());
    setOpen(true);
  };
  const save = () => {
    setError(null);
    const empty = new Set(REQUIRED.filter((key) => draft[key].trim() === ''));
    setMissing(empty);
    if (empty.size > 0) return;
    setBusy(true);
    const api = adminStore.getState().api();
    const details = detailsOf(draft);
    (store ? api.updateStore(store.id, details) : api.createStore(details))
      .then((saved) => {
        setOpen(false);
        onSaved(saved);
      })
      .catch((e: unknown) => setError(refusalText(e)))
      .finally(() => setBusy(false));
  };
  const text = (key: 'name' | 'address' | 'city' | 'region' | 'postalCode' | 'phone', label: string, required = false) => (
    <TextInput
      label={label}
      required={required}
      error={required ? requiredError(key as RequiredField, label) : undefined}
      value={draft[key]}
      onChange={(e) => set(key, e.currentTarget.value)}
    />
  );
  return (
    <>
      <Button variant={store ? 'light' : 'filled'} size={store ? 'xs' : 'sm'} onClick={start}>
        {store ? t.editStore : t.addStore}
      </Button>
      <Modal opened={open} onClose={() => setOpen(false)} title={store ? t.editStoreTitle(store.name) : t.addStore} size="xl">
        <Stack>
          <SimpleGrid cols={2}>
            {text('name', t.name, true)}
            {text('address', t.address, true)}
            {text('city', t.city, true)}
            {text('region', t.region)}
            {text('postalCode', t.postalCode)}
            <TextInput label={t.country} description={t.countryHint} required error={requiredError('country', t.country)} maxLength={2} value={draft.country} onChange={(e) => set('country', e.currentTarget.value.toUpperCase())} />
            <TextInput label={t.phone} description={t.phoneHint} value={draft.phone} onChange={(e) => set('phone', e.currentTarget.value)} />
            <Select label={t.timeZone} searchable allowDeselect={false} data={zones} value={draft.timeZone} onChange={(value) => value && set('timeZone', value)} />
            <Select
              label={t.status}
              description={t.storeStatusHint}
              allowDeselect={false}
              data={[
                { value: 'active', label: t.active },
                { value: 'inactive', label: t.inactive },
              ]}
              value={draft.status}
              onChange={(value) => value && set('status', value as Draft['status'])}
            />
          </SimpleGrid>
          <Text fw={600}>{t.hours}</Text>
          <Text size="sm" c="dimmed">
            {t.hoursHint}
          </Text>
          <SimpleGrid cols={4}>
            {WEEK_DAYS.map((day) => (
              <TextInput key={day} label={t[`day_${day}`]} placeholder={t.closed} value={draft.hours[day]} onChange={(e) => setHours(day, e.currentTarget.value)} />
            ))}
          </SimpleGrid>
          {error && (
            <Alert color="red" role="alert">
              {error}
            </Alert>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setOpen(false)}>
              {t.cancel}
            </Button>
            <Button loading={busy} onClick={save}>
              {store ? t.save : t.addStore}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
