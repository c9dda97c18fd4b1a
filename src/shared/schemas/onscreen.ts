import { Type } from 'typebox';
import { Nullable } from './common';

const Status = Type.Object({ id: Type.Integer(), name: Type.String() });

export const ApiKeyQuery = Type.Object({ api_key: Type.Optional(Type.String({ maxLength: 200 })) });
/**
 * A check-in's query: `screen` is the cashier screen making it, as that screen names itself (our
 * own screens send it; not in the original interface): the store's event stream carries it, so
 * only that screen opens the customer.
 */
export const CheckInQuery = Type.Object({ api_key: Type.Optional(Type.String({ maxLength: 200 })), screen: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' })) });
export const CheckInBody = Type.Object({ card_number: Type.String({ maxLength: 254 }) });
export const RetrieveQuery = Type.Object({ api_key: Type.Optional(Type.String({ maxLength: 200 })), pos_session_hash: Type.String({ maxLength: 64 }) });
export const CloseBody = Type.Object({ pos_session_hash: Type.String({ maxLength: 64 }) });
export const InStoreRegisterBody = Type.Object({
  phone_number: Type.Optional(Type.Object({ number: Type.String({ maxLength: 40 }), code: Type.Optional(Type.String({ maxLength: 8 })) })),
  email: Type.Optional(Type.String({ maxLength: 254 })),
  first_name: Type.Optional(Type.String({ maxLength: 100 })),
  last_name: Type.Optional(Type.String({ maxLength: 100 })),
  card_number: Type.Optional(Type.String({ maxLength: 64, description: 'an unlinked card of the program, linked to the customer in the same step' })),
  card_pin: Type.Optional(Type.String({ maxLength: 64 })),
  passport_number: Type.Optional(Type.String({ maxLength: 40 })),
});
export const AppCheckInBody = Type.Object({ store: Type.Integer({ description: 'store id' }) });

const Modules = Type.Object({
  object: Type.Literal('collection'),
  data: Type.Array(Type.Object({ object: Type.Literal('module'), id: Type.Integer(), name: Type.String() })),
  page_size: Type.Integer(),
  count: Type.Integer(),
  page: Type.Integer(),
});

const PosSessionCore = {
  id: Type.Integer(),
  object: Type.Literal('pos_session'),
  hash: Type.String(),
  date_created: Type.Integer(),
  date_updated: Type.Integer(),
  status: Status,
};

export const CheckInReplySchema = Type.Object({
  pos_session: Type.Object(PosSessionCore),
  vendor: Type.Object({
    object: Type.Literal('vendor'),
    id: Type.Integer(),
    point_of_sale: Nullable(Type.Object({ object: Type.Literal('point_of_sale'), id: Type.Integer(), name: Type.String(), status: Status })),
    modules: Modules,
  }),
  api_key: Type.Object({ object: Type.Literal('api_key'), workstation_identifier: Nullable(Type.String()) }),
});

export const RegisterReplySchema = Type.Object({
  pos_session: Type.Object(PosSessionCore),
  vendor: Type.Object({
    object: Type.Literal('vendor'),
    id: Type.Integer(),
    point_of_sale: Nullable(Type.Object({ pointOfSale_id: Type.Integer(), name: Type.String() })),
    modules: Modules,
  }),
  api_key: Type.Object({ object: Type.Literal('api_key'), workstation_identifier: Nullable(Type.String()) }),
});

export const QueueEntrySchema = Type.Object({
  pos_session: Type.Object({
    ...PosSessionCore,
    vendor: Type.Object({ vendor_id: Type.Integer(), name: Type.String() }),
    user: Type.Object({ user_id: Type.String(), first_name: Type.String(), last_name: Type.String(), email_address: Type.String() }),
    table_number: Nullable(Type.String()),
    redemptions: Type.Array(Type.Unknown()),
    payments: Type.Array(Type.Unknown()),
  }),
});

const CurrencyRef = Type.Object({ id: Type.Integer(), name: Type.String(), code: Nullable(Type.String()) });
const Expiring = Type.Object({
  data: Type.Array(Type.Object({ date: Type.Integer(), amount: Type.Number() })),
  page_size: Type.Integer(),
  count: Type.Integer(),
  page: Type.Integer(),
});
const TierRef = Type.Object({ object: Type.Literal('tier'), id: Type.Integer(), name: Type.String(), summary: Type.String(), description: Type.String(), threshold: Type.Integer() });

export const RetrieveReplySchema = Type.Object({
  pos_session: Type.Object({
    pos_session_id: Type.String(),
    object: Type.Literal('pos_session'),
    hash: Type.String(),
    status: Status,
    card: Nullable(Type.String()),
    card_third_party: Type.Null(),
    token: Type.Null(),
  }),
  user: Type.Object({
    object: Type.Literal('user'),
    id: Type.String(),
    first_name: Type.String(),
    last_name: Type.String(),
    email_address: Type.String(),
    phone_number: Type.String(),
    birthdate: Nullable(Type.Integer()),
    language: Nullable(Type.String()),
    contact_consent: Type.Integer(),
    member_since: Type.Integer(),
    is_verified: Type.Boolean(),
    flagged: Type.Boolean(),
    tier: Nullable(TierRef),
  }),
  favourite_items: Type.Array(Type.Object({ object: Type.Literal('item'), name: Type.String(), sku: Nullable(Type.String()), quantity: Type.Number(), orders: Type.Integer() })),
  reload: Type.Object({ amount: Type.Number(), threshold: Type.Number(), billing_profile: Nullable(Type.Record(Type.String(), Type.Unknown())) }),
  favorite: Type.Null(),
  last_visit: Nullable(Type.Object({ date: Type.Integer(), store: Type.Object({ id: Type.Integer(), name: Type.String() }) })),
  loyalty_balance: Type.Object({ data: Type.Array(Type.Object({ amount: Type.Integer(), currency: CurrencyRef, expiring: Expiring })) }),
  quick_pay_balance: Type.Object({ amount: Type.Number(), currency: Nullable(CurrencyRef), expiring: Expiring }),
  rules: Type.Object({
    earning: Type.Object({
      object: Type.Literal('earning_rules'),
      data: Type.Array(
        Type.Object({
          id: Type.Integer(),
          name: Type.String(),
          currency: CurrencyRef,
          points: Type.Integer(),
          per_amount: Type.Number(),
          rounding: Type.String(),
          max_award: Nullable(Type.Integer()),
          starts: Nullable(Type.Integer()),
          ends: Nullable(Type.Integer()),
        }),
      ),
    }),
    spending: Type.Object({ object: Type.Literal('spending_rules'), data: Type.Array(Type.Unknown()) }),
    tier: Type.Object({
      object: Type.Literal('tier_rules'),
      current: Nullable(TierRef),
      next: Nullable(TierRef),
      // What tiers count (the program setting tier_currency), as loyalty_balance names currencies; null: the program has no loyalty currency.
      currency: Nullable(Type.Object({ id: Type.Integer(), name: Type.String(), code: Type.Null() })),
    }),
  }),
});

// ---- orders

const Amount = Type.Number({ minimum: 0, description: 'major units, e.g. 12.50' });

export const OrderBody = Type.Object({
  card_number: Type.Optional(Type.String({ maxLength: 254, description: 'any identification check-in accepts; beside pos_session_hash it must name the same customer (400 identification_conflict)' })),
  pos_session_hash: Type.Optional(Type.String({ maxLength: 64, description: 'an open session at this store (from the check-in)' })),
  till: Type.Optional(Type.Integer()),
  receipt_number: Type.String({ minLength: 1, maxLength: 64 }),
  subtotal: Amount,
  taxes: Type.Optional(Type.Array(Type.Unknown(), { maxItems: 50 })),
  total: Type.Optional(Type.Number()),
  payment_method: Type.Optional(Type.String({ maxLength: 50 })),
  date: Type.Optional(Type.Integer({ minimum: 0, maximum: 4_102_444_800, description: 'Unix seconds of the sale (default now); earlier is accepted (a till sending late), more than 5 minutes after the node’s clock is refused' })),
  items: Type.Optional(
    Type.Array(Type.Object({ name: Type.String({ maxLength: 200 }), quantity: Type.Number(), price: Type.Number(), sku: Type.Optional(Type.String({ maxLength: 64 })) }), { maxItems: 500 }),
  ),
  quick_pay: Type.Optional(Amount),
  redemptions: Type.Optional(Type.Array(Type.String({ maxLength: 40 }), { maxItems: 50, description: 'reward ids (rwd_…), one per unit' })),
});

// A void names a receipt up to 64 characters plus central's rename of a reused one (`~<node>.<n>`,
// sync/central/repeated-sale.ts): a sale a POS numbered with 64 characters can still be voided.
export const VoidOrderBody = Type.Object({ receipt_number: Type.String({ minLength: 1, maxLength: 96 }) });

const OrderCurrency = Type.Object({ id: Type.Integer(), name: Type.String(), code: Nullable(Type.String()) });

export const OrderReplySchema = Type.Object({
  object: Type.Literal('order'),
  id: Type.Integer(),
  receipt_number: Type.String(),
  status: Type.String({ description: 'Complete or Voided' }),
  date: Type.Integer(),
  user: Type.Object({ user_id: Type.String(), first_name: Type.String(), last_name: Type.String() }),
  points_earned: Type.Integer(),
  points_spent: Type.Integer(),
  quick_pay_used: Type.Number(),
  earned: Type.Array(Type.Object({ rule: Type.String(), currency: OrderCurrency, points: Type.Integer() })),
  redeemed: Type.Array(Type.Object({ reward: Type.String(), name: Type.String(), currency: OrderCurrency, cost: Type.Integer() })),
  balances: Type.Object({
    loyalty: Type.Array(
      Type.Object({
        currency: OrderCurrency,
        amount: Type.Integer(),
        expiring: Type.Optional(Type.Object(Expiring.properties, { description: 'what of this balance expires, as the retrieve reply shows it; absent when nothing does (and on voids)' })),
      }),
    ),
    quick_pay: Type.Object({ currency: Nullable(OrderCurrency), amount: Type.Number() }),
  }),
  transaction_id: Nullable(Type.Integer()),
  tier: Type.Optional(Type.Object({ object: Type.Literal('tier_rules'), current: Nullable(TierRef), next: Nullable(TierRef) }, { description: "the member's tier after the order, and the next one up" })),
  auto_reload_queued: Type.Boolean({ description: 'the quick-pay spend crossed the auto-reload threshold: a reload is on its way' }),
});

/** A business error as POS systems in `success_false` error mode receive it (status 200). */
export const SuccessFalseSchema = Type.Object({
  success: Type.Literal(false),
  error: Type.Object({ code: Type.String(), message: Type.String(), field: Type.Optional(Type.String()) }),
});

// ---- scans

export const ScanBody = Type.Object({
  line: Type.String({ minLength: 1, maxLength: 1024, description: 'what a keyboard-wedge scanner or card reader typed, as captured' }),
});

export const ScanReplySchema = Type.Object({
  ...CheckInReplySchema.properties,
  scan: Type.Object({ kind: Type.String(), symbology: Nullable(Type.String()), masked: Type.String() }),
});
