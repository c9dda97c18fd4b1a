import type { Static } from 'typebox';
import type { OrderBody, OrderReplySchema, SuccessFalseSchema } from '../../../shared/schemas/onscreen';
import { NodeApiError, type Requester } from './client';

export type OrderRequest = Static<typeof OrderBody>;
export type OrderReply = Static<typeof OrderReplySchema>;
type SuccessFalse = Static<typeof SuccessFalseSchema>;

function isSuccessFalse(body: unknown): body is SuccessFalse {
  return Boolean(body) && typeof body === 'object' && (body as { success?: unknown }).success === false;
}

/**
 * In-store ordering with the store key: POST /order (earn on the subtotal, spend quick pay, redeem
 * rewards; the customer's session closes) and DELETE /order (void). A key in `success_false` error
 * mode answers business errors as 200 `{success: false, error}`: those become a NodeApiError too.
 */
export function createOrdersApi(request: Requester, apiKey: string) {
  const key = { api_key: apiKey };
  async function send(method: 'POST' | 'DELETE', body: unknown): Promise<OrderReply> {
    const reply = await request('/order', { method, query: key, body });
    if (isSuccessFalse(reply)) throw new NodeApiError(reply.error.message, { status: 422, code: reply.error.code, field: reply.error.field ?? null });
    return reply as OrderReply;
  }
  return {
    /** POST /order. Resending the same receipt_number returns the first reply and moves nothing. */
    place: (order: OrderRequest) => send('POST', order),
    /** DELETE /order: every movement of the order is reversed. */
    void: (receiptNumber: string) => send('DELETE', { receipt_number: receiptNumber }),
  };
}

export type OrdersApi = ReturnType<typeof createOrdersApi>;
