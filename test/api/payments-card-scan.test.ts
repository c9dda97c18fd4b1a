import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drainAutoReloads } from '../../src/core/payments/auto-reload/auto-reloads';
import { FORM, ROOMY_RATE_LIMITS, signUpAt } from '../support/customers';
import { inStoreApi, receiptCounter } from '../support/in-store';
import { ALL_CARD_NUMBERS, CARDS, cardBody, DECLINED_AT_ADD, paymentsApi } from '../support/payments';
import { http, startTestNode, type TestNode } from '../support/test-node';

// Raw card numbers and CVVs never reach the database, its WAL, the outbox or the logs. A node with
// a trace-level log file runs every payment flow (cards added, refused, invalid, reloads, declines,
// late results, retries, auto reload, deletion, and card details sent where they do not belong),
// then the SQLite file, its -wal file, the outbox folder and the log are scanned for every test
// card number, with and without spaces.

let node: TestNode;

beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS, traceLog: true });
});

afterAll(async () => {
  await node?.close();
});

const api = paymentsApi(() => node);
const store = inStoreApi(() => node);
const newReceipt = receiptCounter('SCAN');

async function runEveryFlow(): Promise<void> {
  const v = await node.addVendor();
  const c = await signUpAt(node, v.vendorId);

  // Cards that tokenize.
  const visa = await api.addProfileOk(c.key, CARDS.visa);
  const mastercard = await api.addProfileOk(c.key, CARDS.mastercard);
  await api.addProfileOk(c.key, CARDS.amex);
  const late = await api.addProfileOk(c.key, CARDS.late);
  const lateDeclined = await api.addProfileOk(c.key, CARDS.lateDeclined);
  const chargeDeclined = await api.addProfileOk(c.key, CARDS.chargeDeclined);
  // A form body and digits without spaces.
  expect((await api.addProfile(c.key, new URLSearchParams(cardBody(node, CARDS.visa.replace(/ /g, '')) as Record<string, string>).toString(), FORM)).status).toBe(200);

  // Refused and invalid cards.
  for (const { card } of DECLINED_AT_ADD) expect((await api.addProfile(c.key, cardBody(node, card))).status).toBe(422);
  expect((await api.addProfile(c.key, cardBody(node, CARDS.luhnFailure))).status).toBe(400);
  expect((await api.addProfile(c.key, cardBody(node, CARDS.visa, { expiry_year: '2001' }))).status).toBe(400);
  expect((await api.addProfile(c.key, cardBody(node, CARDS.visa, { cvv: '12' }))).status).toBe(400);
  expect((await api.addProfile(c.key, { ...cardBody(node, CARDS.visa), number: `${CARDS.visa}${'9'.repeat(40)}` })).status).toBe(400);
  // Card details where they do not belong: the query string, a broken JSON body, a GET body, no session.
  const query = `&number=${encodeURIComponent(CARDS.mastercard)}&cvv=123`;
  expect((await http(`${api.url('/user/billing-profile/add', c.key)}${query}`, { method: 'POST', body: {} })).status).toBe(400);
  expect((await http(api.url('/user/billing-profile/add', c.key), { method: 'POST', body: `{"number": "${CARDS.stolenCard}", "cvv": `, headers: { 'content-type': 'application/json' } })).status).toBe(400);
  const getWithBody = await node.app.inject({ method: 'GET', url: `/user/billing-profile/list?session_key=${encodeURIComponent(c.key)}`, payload: cardBody(node, CARDS.lostCard) });
  expect(getWithBody.statusCode).toBe(200);
  expect((await http(`${node.url}/user/billing-profile/add`, { method: 'POST', body: cardBody(node, CARDS.insufficientFunds) })).status).toBe(401);

  // Reloads: success, idempotent retry, decline, late success and late decline with polls.
  await api.reloadOk(c.key, { user_billingprofile: visa.id, amount: 50 }, { 'idempotency-key': 'scan-1' });
  await api.reloadOk(c.key, { user_billingprofile: visa.id, amount: 50 }, { 'idempotency-key': 'scan-1' });
  expect((await api.reload(c.key, { user_billingprofile: chargeDeclined.id, amount: 5 })).status).toBe(422);
  const pending = await api.reloadOk(c.key, { user_billingprofile: late.id, amount: 5 });
  await api.statusOk(c.key, pending.id);
  await api.statusOk(c.key, pending.id);
  const pendingDecline = await api.reloadOk(c.key, { user_billingprofile: lateDeclined.id, amount: 5 });
  await api.statusOk(c.key, pendingDecline.id);
  await api.statusOk(c.key, pendingDecline.id);

  // Auto reload, through an order and the outbox.
  await api.putSettingsOk(c.key, { amount: 20, threshold: 10, user_billingprofile: mastercard.id });
  await store.orderOk(v.apiKey, { card_number: c.email, receipt_number: newReceipt(), subtotal: 45, total: 45, quick_pay: 45 });
  await drainAutoReloads(node.engine);
  expect(await api.quickPay(c.key)).toBe(30);

  // Default and deletion.
  expect((await api.setDefault(c.key, { user_billingProfile_id: mastercard.id })).status).toBe(200);
  expect((await api.remove(c.key, { user_billingProfile_id: visa.id })).status).toBe(200);
  await node.messaging.drain();
}

function filesToScan(): string[] {
  const files = [join(node.dataDir, 'punchcard.db'), join(node.dataDir, 'punchcard.db-wal'), node.log!.file];
  const outbox = join(node.dataDir, 'outbox');
  if (existsSync(outbox)) files.push(...readdirSync(outbox).map((f) => join(outbox, f)));
  return files.filter((f) => existsSync(f) && statSync(f).isFile());
}

describe('card numbers never stored or logged', () => {
  it('are found in none of the database file, its WAL, the outbox and the log after every payment flow', async () => {
    await runEveryFlow();
    await node.log!.flush();

    const files = filesToScan();
    expect(files).toContain(join(node.dataDir, 'punchcard.db-wal'));
    const log = readFileSync(node.log!.file, 'utf8');
    // The log is real: it holds the payment requests, with their secrets redacted.
    expect(log).toContain('/user/billing-profile/add');
    expect(log).toContain('/user/billing-profile/reload');
    expect(log).toMatch(/number=%5Bredacted%5D|number=\[redacted\]/);
    // The database is real: it holds the profiles' public facts.
    const rows = await node.engine.db.selectFrom('billing_profiles').select(['last4']).execute();
    expect(rows.map((r) => r.last4)).toContain('4242');

    // The scan itself can see a number written to the database: a probe (not a test card) is found.
    const probe = '4111111111111111';
    await node.engine.db.insertInto('node_meta').values({ key: 'scan-probe', value: probe }).execute();
    const seenProbe = filesToScan().some((file) => readFileSync(file).toString('latin1').includes(probe));
    expect(seenProbe).toBe(true);

    const needles = ALL_CARD_NUMBERS.flatMap((n) => [n, n.replace(/ /g, ''), n.replace(/ /g, '-')]);
    for (const file of files) {
      const bytes = readFileSync(file);
      const texts = [bytes.toString('latin1'), bytes.toString('utf16le')];
      for (const needle of needles) {
        for (const text of texts) expect(text.includes(needle), `${needle} found in ${file}`).toBe(false);
      }
    }
  });
});
