import { Alert, Button, Group, Input, Paper, Progress, Select, Stack, Table, Text, Title } from '@mantine/core';
import { useEffect, useId, useRef, useState } from 'react';
import { importReasonWords } from '../../../shared/import-reason-words';
import { IMPORT_FILE_MAX_BYTES } from '../../../shared/schemas/backoffice-import';
import { errorMessage, NodeApiError } from '../api/client';
import { useLanguage } from '../i18n/language-store';
import type { ImportJob } from './admin-api';
import { adminStore } from './admin-store';
import { TableScroll } from './a11y';
import { formatAmount } from './format';
import { useImportStrings } from './import-strings';
import { useProgramCountry } from './program-country';
import { saveFile } from './save-file';

/** A step the screen runs (written as a call signature: an arrow's `=> Promise<` reads as JSX text to test/renderer/hardcoded-strings). */
type AsyncWork = { (): Promise<void> };

type Strings = ReturnType<typeof useImportStrings>;

/** How often the screen reads a running job (a background refresh: it keeps no session alive). */
const POLL_MS = 1000;
/** Refused rows listed on the screen; the downloaded file has every one. */
const LISTED_ROWS = 100;

/**
 * Importing members from another system (owners): choose the CSV, see the dry run's report (the
 * preview), confirm, follow the import, read its report and download the refused rows to fix. The
 * node runs each step as a job (core/import/import-jobs.ts); this screen polls it.
 */
export function ImportScreen() {
  const t = useImportStrings();
  const [job, setJob] = useState<ImportJob | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [fileKey, setFileKey] = useState(0);
  // Where the program has several loyalty currencies, the node asks which one the points column holds.
  const [pointsCurrencies, setPointsCurrencies] = useState<Array<{ value: string; label: string }> | null>(null);
  const [pointsCurrency, setPointsCurrency] = useState<string | null>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  const fileId = useId();

  // Back on the screen while an import runs (a reload, another owner's tab): follow it. A finished
  // preview is not brought back: the program may have changed since, and a new one costs an upload.
  useEffect(() => {
    let gone = false;
    adminStore
      .getState()
      .api()
      .importJobs()
      .then(async ({ items }) => {
        const latest = items[0];
        if (!gone && latest?.status === 'running') setJob(await adminStore.getState().api().importJob(latest.id));
      })
      .catch(() => undefined);
    return () => {
      gone = true;
    };
  }, []);

  const running = job?.status === 'running';
  const jobId = job?.id;
  useEffect(() => {
    if (!running || !jobId) return;
    const timer = setInterval(() => {
      adminStore
        .getState()
        .api()
        .importJob(jobId)
        .then(setJob)
        .catch((e: unknown) => setError(refusalWords(e, t)));
    }, POLL_MS);
    return () => clearInterval(timer);
  }, [running, jobId, t]);

  const act = async (work: AsyncWork) => {
    setBusy(true);
    setError(null);
    try {
      await work();
    } catch (e) {
      setError(refusalWords(e, t));
    } finally {
      setBusy(false);
    }
  };
  const check = () =>
    act(async () => {
      const file = fileInput.current?.files?.[0];
      if (!file) return;
      if (file.size > IMPORT_FILE_MAX_BYTES) throw new Error(t.tooLarge);
      try {
        setJob(await adminStore.getState().api().startImport(file.name, await base64Of(file), pointsCurrency));
      } catch (e) {
        if (e instanceof NodeApiError && e.field === 'points_currency' && pointsCurrencies === null) {
          const { currencies } = await adminStore.getState().api().program();
          setPointsCurrencies(currencies.filter((c) => c.code === null && c.status === 'ACTIVE').map((c) => ({ value: c.id, label: c.name })));
          throw new Error(t.choosePointsCurrency);
        }
        // Another owner's import runs: follow it here, saying whose it is.
        const other = e instanceof NodeApiError && e.code === 'import_in_progress' ? (await adminStore.getState().api().importJobs()).items.find((j) => j.status === 'running') : undefined;
        if (!other) throw e;
        setJob(other);
        throw new Error(t.running(other.staff_email));
      }
    });
  const confirm = (preview: ImportJob) => act(async () => setJob(await adminStore.getState().api().confirmImport(preview.id)));
  const startOver = () => {
    setJob(null);
    setError(null);
    setFileKey((k) => k + 1);
  };

  return (
    <Paper withBorder p="md" component="section" aria-labelledby="import-title">
      <Stack>
        <Title order={2} size="h4" id="import-title">
          {t.title}
        </Title>
        <Text c="dimmed">{t.hint}</Text>
        {!job && (
          <Group align="flex-end">
            <Input.Wrapper label={t.file} labelProps={{ htmlFor: fileId }}>
              <input key={fileKey} ref={fileInput} id={fileId} type="file" accept=".csv,text/csv" style={{ display: 'block' }} />
            </Input.Wrapper>
            {pointsCurrencies && <Select label={t.pointsCurrency} data={pointsCurrencies} value={pointsCurrency} onChange={setPointsCurrency} allowDeselect={false} />}
            <Button onClick={() => void check()} loading={busy}>
              {t.check}
            </Button>
          </Group>
        )}
        {error && (
          <Alert color="red" role="alert">
            {error}
          </Alert>
        )}
        {job && <JobView job={job} busy={busy} onConfirm={() => void confirm(job)} onStartOver={startOver} />}
      </Stack>
    </Paper>
  );
}

function JobView({ job, busy, onConfirm, onStartOver }: { job: ImportJob; busy: boolean; onConfirm: () => void; onStartOver: () => void }) {
  const t = useImportStrings();
  const language = useLanguage();
  const n = (value: number) => value.toLocaleString(language);
  const [done, setDone] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  if (job.status === 'running') {
    const words = job.dry_run ? t.checking(n(job.done), n(job.rows)) : t.importing(n(job.done), n(job.rows));
    return (
      <Stack gap="xs">
        <Progress value={job.rows === 0 ? 0 : (100 * job.done) / job.rows} aria-label={t.progress} animated />
        <Text role="status">{words}</Text>
      </Stack>
    );
  }
  if (job.status === 'failed' || !job.report) {
    return (
      <Stack>
        <Alert color="red" role="alert">
          {/* A departure meanwhile (import-jobs.ts, MEMBER_LEFT): the same file again would bring the person back. */}
          {job.error?.code === 'member_left' ? (
            <>
              {t.memberLeft}
              {!job.dry_run && <Text size="sm">{t.keptBatchesOnly}</Text>}
            </>
          ) : (
            <>
              {t.failed} {job.error?.message}
              {!job.dry_run && <Text size="sm">{t.keptBatches}</Text>}
            </>
          )}
        </Alert>
        <Group>
          <Button variant="default" onClick={onStartOver}>
            {t.another}
          </Button>
        </Group>
      </Stack>
    );
  }
  const report = job.report;
  const download = async () => {
    setError(null);
    try {
      const file = await adminStore.getState().api().importProblemsFile(job.id, language);
      const name = file.name ?? 'members-problems.csv';
      saveFile(file.blob, name);
      setDone(t.downloaded(name));
    } catch (e) {
      setError(refusalWords(e, t));
    }
  };
  return (
    <Stack>
      <Title order={3} size="h5">
        {job.dry_run ? t.previewTitle(job.file_name) : t.resultTitle(job.file_name)}
      </Title>
      <ReportTable job={job} />
      {job.ignored_columns.length > 0 && <Text>{t.notRead(job.ignored_columns.join(', '))}</Text>}
      <RefusedRows job={job} />
      {!job.dry_run && report.refused > 0 && <Text>{t.fixAndAgain}</Text>}
      {!job.dry_run && report.refused === 0 && <Text>{t.noProblems}</Text>}
      {error && (
        <Alert color="red" role="alert">
          {error}
        </Alert>
      )}
      {done && <Text role="status">{done}</Text>}
      <Group>
        {job.dry_run && job.confirmed_as === null && (
          <Button onClick={onConfirm} loading={busy} disabled={report.imported === 0}>
            {report.imported === 0 ? t.confirmNone : t.confirm(report.imported, n(report.imported))}
          </Button>
        )}
        {report.refused > 0 && (
          <Button variant="light" onClick={() => void download()}>
            {t.download}
          </Button>
        )}
        <Button variant="default" onClick={onStartOver}>
          {t.another}
        </Button>
      </Group>
    </Stack>
  );
}

function ReportTable({ job }: { job: ImportJob }) {
  const t = useImportStrings();
  const language = useLanguage();
  useProgramCountry();
  const report = job.report!;
  const n = (value: number) => value.toLocaleString(language);
  // Each loyalty currency's points by name where the file brings several.
  const quickPay = report.quick_pay_currency ? formatAmount(report.quick_pay, report.quick_pay_currency) : '0';
  const points = report.points_by_currency.map((c) => `${formatAmount(c.points, null)} ${c.name}`);
  const rows: Array<[string, string]> = [
    [t.rows, n(job.rows)],
    [job.dry_run ? t.wouldImport : t.imported, n(report.imported)],
    [t.alreadyMembers, n(report.already_members)],
    [t.refused, n(report.refused)],
    [t.openingBalances, points.length > 1 ? t.balancesByCurrency(points, quickPay) : t.balances(formatAmount(report.points, null), quickPay)],
  ];
  return (
    <TableScroll>
      <Table aria-label={t.summary} striped>
        <Table.Tbody>
          {rows.map(([label, value]) => (
            <Table.Tr key={label} aria-label={label}>
              <Table.Th scope="row">{label}</Table.Th>
              <Table.Td>{value}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </TableScroll>
  );
}

function RefusedRows({ job }: { job: ImportJob }) {
  const t = useImportStrings();
  const language = useLanguage();
  const refused = job.report!.problems.filter((p) => p.outcome === 'refused');
  if (refused.length === 0) return null;
  return (
    <Stack gap="xs">
      <Text fw={600}>{t.refusedRows}</Text>
      <TableScroll>
        <Table aria-label={t.refusedRows} striped>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t.line}</Table.Th>
              <Table.Th>{t.column}</Table.Th>
              <Table.Th>{t.reason}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {refused.slice(0, LISTED_ROWS).map((p) => (
              <Table.Tr key={p.line} aria-label={`${t.line} ${p.line}`}>
                <Table.Td>{p.line}</Table.Td>
                <Table.Td>{p.field ?? ''}</Table.Td>
                <Table.Td>{importReasonWords(p.reason, language, p.message)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </TableScroll>
      {refused.length > LISTED_ROWS && <Text>{t.moreRows((refused.length - LISTED_ROWS).toLocaleString(language))}</Text>}
    </Stack>
  );
}

/** The file's bytes as base64 (the node reads them as the CLI reads the file: UTF-8 checked there). */
async function base64Of(file: Blob): Promise<string> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** The node's refusal in the screen's words where this screen knows the code (the file's own 400s by what they say). */
function refusalWords(error: unknown, t: Strings): string {
  if (!(error instanceof NodeApiError) || error.code === null) return errorMessage(error);
  const own: Partial<Record<string, string>> = {
    import_in_progress: t.import_in_progress,
    import_not_confirmable: t.import_not_confirmable,
    import_not_found: t.import_not_found,
    import_file_expired: t.import_file_expired,
    import_file_too_large: t.import_file_too_large,
    customers_managed_by_central: t.customers_managed_by_central,
  };
  if (own[error.code]) return own[error.code]!;
  if (error.code === 'validation_failed' && error.field === 'points_currency') return t.choosePointsCurrency;
  if (error.code === 'validation_failed' && error.field === 'file') {
    const said = /UTF-8/.test(error.message) ? t.fileNotUtf8 : /empty/.test(error.message) ? t.fileEmpty : /no email or phone/.test(error.message) ? t.fileNoContact : /twice/.test(error.message) ? t.fileRepeated : '';
    return said || error.message;
  }
  return errorMessage(error);
}
