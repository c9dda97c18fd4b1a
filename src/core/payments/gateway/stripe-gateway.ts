import { checkCard } from './card-input';
import {
  type CardDetails,
  type ChargeRequest,
  type ChargeResult,
  type DeclineReason,
  isDeclineReason,
  type PaymentGateway,
  PaymentGatewayError,
  type RefundPart,
  type RefundResult,
  type TokenizeResult,
} from './payment-gateway';
import { toStripeAmount } from './stripe-amounts';

// A Stripe adapter over its REST API (PaymentMethods attached to a Customer, off-session
// PaymentIntents). Not exercised by the test suite: it needs a Stripe account whose key may send
// raw card data. The token kept in a profile is `<customer id>/<payment method id>`.

export interface StripeGatewayOptions {
  secretKey: string;
  /** Default https://api.stripe.com (a local fake may stand in). */
  baseUrl?: string;
}

type StripeObject = Record<string, any>;

/** The PaymentIntent metadata field holding the node's idempotency key (`punchcard-charge-<id>`). */
const KEY_METADATA = 'punchcard_idempotency_key';

export class StripeGateway implements PaymentGateway {
  readonly name = 'stripe';
  private readonly baseUrl: string;

  constructor(private readonly options: StripeGatewayOptions) {
    this.baseUrl = (options.baseUrl ?? 'https://api.stripe.com').replace(/\/$/, '');
  }

  async tokenize(input: CardDetails, now: number): Promise<TokenizeResult> {
    const checked = checkCard(input, now);
    if (!checked.ok) return { status: 'invalid', reason: checked.reason, field: checked.field };
    const { card } = checked;
    const method = await this.call('POST', '/v1/payment_methods', {
      type: 'card',
      'card[number]': card.digits,
      'card[exp_month]': String(card.expiryMonth),
      'card[exp_year]': String(card.expiryYear),
      'card[cvc]': card.cvv,
      ...(card.postalCode ? { 'billing_details[address][postal_code]': card.postalCode } : {}),
      ...(card.name ? { 'billing_details[name]': card.name } : {}),
    });
    if (method.error) return { status: 'declined', reason: declineOf(method.error) };
    const customer = await this.call('POST', '/v1/customers', {});
    if (customer.error) throw new PaymentGatewayError(`stripe: ${String(customer.error.message ?? 'customer not created')}`);
    const attached = await this.call('POST', `/v1/payment_methods/${method.id}/attach`, { customer: customer.id });
    if (attached.error) return { status: 'declined', reason: declineOf(attached.error) };
    return {
      status: 'ok',
      card: { token: `${customer.id}/${method.id}`, brand: card.brand, last4: card.last4, expiryMonth: card.expiryMonth, expiryYear: card.expiryYear, postalCode: card.postalCode },
    };
  }

  async charge(request: ChargeRequest): Promise<ChargeResult> {
    const [customer, method] = request.token.split('/');
    if (!customer || !method) throw new PaymentGatewayError('not a stripe token', false);
    const intent = await this.call(
      'POST',
      '/v1/payment_intents',
      {
        amount: String(toStripeAmount(request.amountMinor, request.currency)),
        currency: request.currency.toLowerCase(),
        customer,
        payment_method: method,
        confirm: 'true',
        off_session: 'true',
        ...(request.description ? { description: request.description } : {}),
        // Lets findCharge locate the PaymentIntent when this request's answer is lost.
        [`metadata[${KEY_METADATA}]`]: request.idempotencyKey,
      },
      request.idempotencyKey,
    );
    if (intent.error) {
      const id = intent.error.payment_intent?.id;
      if (!id) throw new PaymentGatewayError(`stripe: ${String(intent.error.message ?? 'charge failed')}`, intent.error.type !== 'invalid_request_error');
      return { chargeId: id, status: 'declined', declineReason: declineOf(intent.error) };
    }
    return resultOf(intent);
  }

  async getCharge(chargeId: string): Promise<ChargeResult> {
    const intent = await this.call('GET', `/v1/payment_intents/${chargeId}`);
    if (intent.error) throw new PaymentGatewayError(`stripe: ${String(intent.error.message ?? 'lookup failed')}`);
    return resultOf(intent);
  }

  /**
   * Stripe keeps no lookup by idempotency key, so each PaymentIntent carries the key in its
   * metadata and is found with the Search API. Search is eventually consistent (an intent may take
   * about a minute to show up), so a miss is only "not yet": callers wait a grace period and give up
   * only after a long deadline. Re-sending the request with the same Idempotency-Key is not a lookup:
   * Stripe forgets keys after 24 h, and a key it never saw would create the charge.
   */
  async findCharge(idempotencyKey: string): Promise<ChargeResult | null> {
    const query = `metadata['${KEY_METADATA}']:'${idempotencyKey.replace(/['\\]/g, (c) => `\\${c}`)}'`;
    const found = await this.call('GET', `/v1/payment_intents/search?${new URLSearchParams({ query, limit: '1' }).toString()}`);
    if (found.error) throw new PaymentGatewayError(`stripe: ${String(found.error.message ?? 'search failed')}`);
    const intent = Array.isArray(found.data) ? (found.data[0] as StripeObject | undefined) : undefined;
    return intent ? resultOf(intent) : null;
  }

  async refund(chargeId: string, idempotencyKey: string, part?: RefundPart): Promise<RefundResult> {
    const form: Record<string, string> = { payment_intent: chargeId };
    if (part) form.amount = String(toStripeAmount(part.amountMinor, part.currency));
    const refund = await this.call('POST', '/v1/refunds', form, idempotencyKey);
    if (refund.error) return { refundId: '', status: 'failed' };
    return { refundId: String(refund.id), status: refund.status === 'succeeded' ? 'succeeded' : refund.status === 'pending' ? 'pending' : 'failed' };
  }

  /** Detaches the PaymentMethod from its Customer (the token is `<customer id>/<payment method id>`). */
  async detach(token: string): Promise<void> {
    const methodId = token.split('/')[1];
    if (!methodId) return;
    const detached = await this.call('POST', `/v1/payment_methods/${encodeURIComponent(methodId)}/detach`, {});
    // Already detached or gone: nothing left to charge.
    if (detached.error && detached.error.code !== 'resource_missing' && !/not attached/i.test(String(detached.error.message ?? ''))) {
      throw new PaymentGatewayError(`stripe: ${String(detached.error.message ?? 'detach failed')}`);
    }
  }

  private async call(method: 'GET' | 'POST', path: string, form?: Record<string, string>, idempotencyKey?: string): Promise<StripeObject> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.options.secretKey}` };
    if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
    let body: string | undefined;
    if (form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(form).toString();
    }
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl}${path}`, { method, headers, body, signal: AbortSignal.timeout(30_000) });
    } catch (error) {
      throw new PaymentGatewayError(`stripe unreachable: ${(error as Error).message}`);
    }
    if (response.status >= 500) throw new PaymentGatewayError(`stripe answered ${response.status}`);
    try {
      return (await response.json()) as StripeObject;
    } catch {
      throw new PaymentGatewayError('stripe answered something that is not JSON');
    }
  }
}

function resultOf(intent: StripeObject): ChargeResult {
  if (intent.status === 'succeeded') return { chargeId: intent.id, status: 'succeeded' };
  if (intent.status === 'requires_payment_method' || intent.status === 'canceled') {
    return { chargeId: intent.id, status: 'declined', declineReason: declineOf(intent.last_payment_error ?? {}) };
  }
  return { chargeId: intent.id, status: 'pending' };
}

function declineOf(error: StripeObject): DeclineReason {
  const code = error.decline_code ?? error.code;
  if (code === 'card_declined' || code === 'do_not_honor') return 'generic_decline';
  return isDeclineReason(code) ? code : 'generic_decline';
}
