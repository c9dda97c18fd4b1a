import { expect } from 'vitest';
import type { TestCardScenario, TestGateway } from '../../src/core/payments/gateway/test-gateway';
import { http, type HttpReply, type TestNode } from './test-node';

// Payments over real HTTP, for test/api/payments-*: the test gateway's card numbers, billing
// profiles, reloads, the status poll and the auto-reload settings. `paymentsApi` binds the calls
// to a file's node.

/** The test gateway's cards as a customer types them (with spaces), by what they do. */
export const CARDS = {
  visa: '4242 4242 4242 4242',
  mastercard: '5555 5555 5555 4444',
  amex: '3782 822463 10005',
  genericDecline: '4000 0000 0000 0002',
  insufficientFunds: '4000 0000 0000 9995',
  lostCard: '4000 0000 0000 9987',
  stolenCard: '4000 0000 0000 9979',
  expiredCard: '4000 0000 0000 0069',
  incorrectCvc: '4000 0000 0000 0127',
  processingError: '4000 0000 0000 0119',
  luhnFailure: '4242 4242 4242 4241',
  chargeDeclined: '4000 0000 0000 0341',
  late: '4000 0027 6000 3184',
  lateDeclined: '4000 0084 0000 1629',
} as const;

/** Every test card number (with spaces), for the scan of database files and logs. */
export const ALL_CARD_NUMBERS: string[] = Object.values(CARDS);

/** The decline cards refused when added, with the machine code the reply carries. */
export const DECLINED_AT_ADD: Array<{ card: string; code: string }> = [
  { card: CARDS.genericDecline, code: 'card_declined' },
  { card: CARDS.insufficientFunds, code: 'insufficient_funds' },
  { card: CARDS.lostCard, code: 'card_lost' },
  { card: CARDS.stolenCard, code: 'card_stolen' },
  { card: CARDS.expiredCard, code: 'card_expired' },
  { card: CARDS.incorrectCvc, code: 'incorrect_cvc' },
  { card: CARDS.processingError, code: 'card_processing_error' },
];

/** Decline scenarios a saved card can take at charge time, with the machine code of the reload error. */
export const DECLINED_AT_CHARGE: Array<{ scenario: TestCardScenario; code: string }> = [
  { scenario: 'decline:generic_decline', code: 'card_declined' },
  { scenario: 'decline:insufficient_funds', code: 'insufficient_funds' },
  { scenario: 'decline:lost_card', code: 'card_lost' },
  { scenario: 'decline:stolen_card', code: 'card_stolen' },
  { scenario: 'decline:expired_card', code: 'card_expired' },
  { scenario: 'decline:incorrect_cvc', code: 'incorrect_cvc' },
  { scenario: 'decline:processing_error', code: 'card_processing_error' },
];

/** The body of POST /user/billing-profile/add for `number`, expiring 12/<clock year + 3>; `overrides` win. */
export function cardBody(node: TestNode, number: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const year = new Date(node.clock.now()).getUTCFullYear() + 3;
  return { name: 'Ana López', number, expiry_month: '12', expiry_year: String(year), cvv: number.startsWith('37') ? '1234' : '123', description: 'My card', zip_code: '10001', ...overrides };
}

/** The payment calls on the node `nodeOf()` returns, for a customer's session_key. */
export function paymentsApi(nodeOf: () => TestNode) {
  const url = (path: string, key: string, extra = '') => `${nodeOf().url}${path}?session_key=${encodeURIComponent(key)}${extra}`;
  const addProfile = (key: string, body: unknown, headers?: Record<string, string>): Promise<HttpReply> =>
    http(url('/user/billing-profile/add', key), { method: 'POST', body, ...(headers ? { headers } : {}) });
  const reload = (key: string, body: unknown, headers?: Record<string, string>): Promise<HttpReply> =>
    http(url('/user/billing-profile/reload', key), { method: 'POST', body, ...(headers ? { headers } : {}) });
  const status = (key: string, transaction: number | string): Promise<HttpReply> => http(url('/user/billing-profile/reload/status', key, `&transaction=${transaction}`));
  const putSettings = (key: string, body: unknown): Promise<HttpReply> => http(url('/user/reload/settings', key), { method: 'PUT', body });
  const ok = (reply: HttpReply) => {
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    return reply.body;
  };
  return {
    url,
    addProfile,
    /** Adds the card (`cardBody` + overrides), expecting 200: the billing profile. */
    addProfileOk: async (key: string, number: string = CARDS.visa, overrides: Record<string, unknown> = {}): Promise<any> => ok(await addProfile(key, cardBody(nodeOf(), number, overrides))),
    list: (key: string): Promise<HttpReply> => http(url('/user/billing-profile/list', key)),
    listOk: async (key: string): Promise<any> => ok(await http(url('/user/billing-profile/list', key))),
    setDefault: (key: string, body: unknown): Promise<HttpReply> => http(url('/user/billing-profile/default', key), { method: 'POST', body }),
    remove: (key: string, body: unknown, headers?: Record<string, string>): Promise<HttpReply> =>
      http(url('/user/billing-profile', key), { method: 'DELETE', body, ...(headers ? { headers } : {}) }),
    reload,
    reloadOk: async (key: string, body: unknown, headers?: Record<string, string>): Promise<any> => ok(await reload(key, body, headers)),
    status,
    statusOk: async (key: string, transaction: number | string): Promise<any> => ok(await status(key, transaction)),
    getSettings: (key: string): Promise<HttpReply> => http(url('/user/reload/settings', key)),
    getSettingsOk: async (key: string): Promise<any> => ok(await http(url('/user/reload/settings', key))),
    putSettings,
    putSettingsOk: async (key: string, body: unknown): Promise<any> => ok(await putSettings(key, body)),
    /** GET /user/quick-pay/balance: the amount in major units. */
    quickPay: async (key: string): Promise<number> => ok(await http(url('/user/quick-pay/balance', key))).amount,
    /** GET /user/transaction/list (session variant), newest first. */
    history: async (key: string): Promise<any[]> => ok(await http(url('/user/transaction/list', key))).data,
    /** The test gateway of the node (for setCardScenario). */
    gateway: (): TestGateway => nodeOf().engine.payments as TestGateway,
    /** The gateway token of a billing profile (never on the wire; read from its row). */
    tokenOf: async (profileId: number): Promise<string> =>
      (await nodeOf().engine.db.selectFrom('billing_profiles').select('token').where('id', '=', profileId).executeTakeFirstOrThrow()).token,
    /** How many charges the test gateway holds for a profile's token. */
    gatewayCharges: async (profileId: number): Promise<number> => {
      const { token } = await nodeOf().engine.db.selectFrom('billing_profiles').select('token').where('id', '=', profileId).executeTakeFirstOrThrow();
      return (await nodeOf().engine.db.selectFrom('test_gateway_charges').select('id').where('token', '=', token).execute()).length;
    },
  };
}
