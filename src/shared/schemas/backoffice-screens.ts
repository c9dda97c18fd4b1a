import { Type } from 'typebox';
import { IsoTimestamp, Nullable } from './common';
import { CurrencySchema } from './currencies';
import { EarningRuleSchema, ProgramSettingsSchema, RewardSchema, TierSchema } from './rules';

// The back office's program, dashboard and chain-health screens (issue 15).

const Cap = Nullable(Type.Integer({ minimum: 0 }));

export const OfflineCapsSchema = Type.Object({
  apply: Type.Union([Type.Literal('set_here'), Type.Literal('from_central'), Type.Literal('not_applicable')], {
    description: 'set_here: central; from_central: a paired store applies central’s caps while offline; not_applicable: a standalone store',
  }),
  quick_pay_per_order: Cap,
  quick_pay_per_day: Cap,
  points_per_order: Cap,
  points_per_day: Cap,
});

export const OfflineCapsBody = Type.Object(
  { quick_pay_per_order: Type.Optional(Cap), quick_pay_per_day: Type.Optional(Cap), points_per_order: Type.Optional(Cap), points_per_day: Type.Optional(Cap) },
  { additionalProperties: false },
);

/** The program's country (ISO 3166-1 alpha-2): how phones without a +code are read, cédulas checked, amounts written. */
export const ProgramCountryBody = Type.Object({ country: Type.String({ minLength: 1, maxLength: 10, description: 'ISO 3166-1 alpha-2, any letter case' }) }, { additionalProperties: false });
export const ProgramCountrySchema = Type.Object({ country: Type.String({ description: 'ISO 3166-1 alpha-2' }) });

/** The program's language: what customers' mail and pages default to (a customer's own choice wins), and the screens open in. */
export const ProgramLanguageBody = Type.Object({ language: Type.String({ minLength: 1, maxLength: 10, description: 'en or es, any letter case' }) }, { additionalProperties: false });
export const ProgramLanguageSchema = Type.Object({ language: Type.String({ description: 'en or es' }) });

export const AdminContentSchema = Type.Object({ slug: Type.String(), language: Type.String(), title: Type.String(), content: Type.String(), version: Type.Integer() });

export const ProgramOverviewSchema = Type.Object({
  editable: Type.Boolean({ description: 'false on a paired store: the program is changed at central' }),
  currencies: Type.Array(CurrencySchema),
  quick_pay_currency: Nullable(Type.String({ description: 'id of the currency quick pay is held in; null: the program offers none' })),
  country: Type.String({ description: "the vendor's country (ISO 3166-1 alpha-2); amounts are written as it writes them" }),
  language: Type.String({ description: "the program's language (en, es): what customers' mail and pages default to" }),
  earning_rules: Type.Array(EarningRuleSchema),
  rewards: Type.Array(RewardSchema),
  tiers: Type.Array(TierSchema),
  settings: ProgramSettingsSchema,
  offline_caps: OfflineCapsSchema,
  content: Type.Array(AdminContentSchema),
});

export const PublicIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
export const ContentSlugParams = Type.Object({ slug: Type.String({ maxLength: 40 }) });

export const BlockBody = Type.Object({ reason: Type.String({ maxLength: 1000 }) });
/** A customer without an email gets one from the back office (their way into the app). */
export const CustomerEmailBody = Type.Object({ email: Type.String({ maxLength: 1000 }) });
export const CustomerEmailSchema = Type.Object({ email: Type.String() });
/** Staff remove a member at their request; a balance they still hold must be forfeited in so many words. */
export const RemoveMemberBody = Type.Object({ reason: Type.String({ maxLength: 1000 }), forfeit_balances: Type.Optional(Type.Boolean()) });
export const RemovedMemberSchema = Type.Object({ removed: Type.Literal(true), erased: Type.Boolean({ description: 'no other program held the account: the person was erased' }) });
export const BlockStateSchema = Type.Object({ blocked: Type.Boolean(), blocked_reason: Nullable(Type.String()), blocked_at: Nullable(IsoTimestamp) });

/** Points issued and redeemed told per loyalty currency (a program with Points and Stamps): the dashboard's and the period statement's. */
export const LoyaltyFiguresSchema = Type.Array(
  Type.Object({ currency: Type.String({ description: 'curr_… of the loyalty currency' }), name: Type.String(), issued: Type.Integer(), redeemed: Type.Integer() }),
  { description: 'one entry per loyalty currency of the program (active, or moved by these orders), in the order they were made; points_issued and points_redeemed are their sums' },
);

const Figures = {
  check_ins: Type.Integer(),
  orders: Type.Integer(),
  points_issued: Type.Integer({ description: 'every loyalty currency together; per currency: loyalty' }),
  points_redeemed: Type.Integer({ description: 'every loyalty currency together; per currency: loyalty' }),
  loyalty: LoyaltyFiguresSchema,
  stored_value_loaded: Type.Integer({ description: 'minor units of the quick-pay currency' }),
  stored_value_spent: Type.Integer({ description: 'what sales paid with quick pay on their day, voided since or not; minor units' }),
  stored_value_returned: Type.Integer({ description: 'what voids gave back to quick-pay balances on their day, minor units (program-wide)' }),
  stored_value_adjusted: Type.Integer({ description: 'net of staff adjustments of quick pay, minor units (program-wide)' }),
  stored_value_forfeited: Type.Integer({ description: 'quick pay given up by customers who left the program (breakage; zero or negative), minor units (program-wide)' }),
  stored_value_paid_back: Type.Integer({ description: 'extension: quick pay staff paid back to customers, in cash or to their cards (zero or positive; the day’s liability moves by loaded − spent + returned + adjusted + forfeited − paid back), minor units (program-wide)' }),
  reloads: Type.Integer(),
  reload_amount: Type.Integer({ description: 'minor units' }),
  egifts: Type.Integer({ description: 'eGifts claimed (credited to a balance); sold and unclaimed ones are unclaimed_egifts' }),
  egift_amount: Type.Integer({ description: 'what those claims credited, minor units' }),
};
export const DashboardFiguresSchema = Type.Object(Figures);

export const DashboardSchema = Type.Object({
  time_zone: Type.String({ description: 'the days are counted in this time zone' }),
  store: Nullable(Type.Integer({ description: 'the store shown; null: the whole program' })),
  quick_pay_currency: Nullable(Type.String({ description: 'ISO code of the stored value' })),
  today: DashboardFiguresSchema,
  last_30_days: DashboardFiguresSchema,
  outstanding_stored_value: Nullable(Type.Integer({ description: 'every quick-pay balance now, minor units; null for one store' })),
  unclaimed_egifts: Nullable(
    Type.Object(
      { count: Type.Integer(), amount: Type.Integer({ description: 'minor units' }) },
      { description: 'eGifts sold (paid, scheduled or sent) and not yet claimed, now: owed, in no balance yet; null for one store' },
    ),
  ),
  outstanding_liability: Nullable(Type.Integer({ description: 'the program’s liability now: outstanding stored value + unclaimed eGifts, minor units; null for one store' })),
  days: Type.Array(
    Type.Object({
      day: Type.String({ description: 'YYYY-MM-DD' }),
      ...Figures,
      outstanding_stored_value: Nullable(Type.Integer()),
      unclaimed_egift_amount: Nullable(Type.Integer({ description: 'eGifts sold and not claimed at the end of the day, minor units' })),
    }),
  ),
  stores: Type.Array(Type.Object({ id: Type.Integer(), name: Type.String(), ...Figures })),
});

export const DashboardQuery = Type.Object({ store: Type.Optional(Type.Integer({ minimum: 1 })) });

export const StoreNodeHealthSchema = Type.Object({
  id: Type.Integer(),
  store: Type.Integer(),
  store_name: Type.String(),
  label: Type.String(),
  paired_at: IsoTimestamp,
  last_seen_at: Nullable(IsoTimestamp),
  last_event: Type.Integer({ description: 'the last event number central received from the store' }),
  pending_changes: Type.Integer({ description: 'changes central holds that the store has not pulled yet, counted up to 10,000' }),
  pending_changes_capped: Type.Boolean({ description: 'more than 10,000 are waiting (pending_changes is then 10,000)' }),
  first_sync: Type.Union([Type.Literal('waiting'), Type.Literal('in_progress'), Type.Literal('done')]),
  rejected_events: Type.Integer(),
  open_exceptions: Type.Integer(),
  revoked_at: Nullable(IsoTimestamp),
  schema_level: Nullable(Type.String({ description: 'the version (schema level: its last migration) the store last synced with; null: not known' })),
  version: Nullable(Type.Union([Type.Literal('older'), Type.Literal('same'), Type.Literal('newer')], { description: "the store's version beside central's" })),
});

export const SyncExceptionSchema = Type.Object({
  id: Type.Integer(),
  store: Nullable(Type.Integer()),
  node: Nullable(Type.Integer()),
  kind: Type.String(),
  subject: Type.String(),
  message: Type.String(),
  created_at: IsoTimestamp,
  resolved_at: Nullable(IsoTimestamp),
});

/** A sale a sync exception names, by the receipt staff know it by and the customer whose page shows it. */
const ExceptionOrderSchema = (description: string) =>
  Type.Object(
    {
      id: Type.Integer(),
      receipt_number: Type.String({ description: 'its receipt as central holds it now: the one the cashier gave, or the name central gave a reused one (R-9~5)' }),
      customer: Nullable(Type.Integer({ description: 'its customer, whose page shows the sale in their ledger; null when not a member of the program' })),
    },
    { description },
  );

/** A sync exception on the chain page: the customers its text mentions by id, named (members of the program only). */
export const ChainExceptionSchema = Type.Object({
  ...SyncExceptionSchema.properties,
  customers: Type.Array(Type.Object({ id: Type.Integer(), name: Type.String({ description: 'their name, or their email when they have no name' }) }), {
    description: 'the program’s customers the subject and message name by id ("user 123", "customer 123"), in the order they appear, then those of `mentioned_orders`',
  }),
  message_data: Nullable(
    Type.Object(
      {
        key: Type.String({ description: 'which sentence the message is (one per thing central writes, e.g. customer_merged)' }),
        params: Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Null()]), { description: 'the values in it: customers by id, amounts in minor units with their currency code' }),
      },
      { description: 'what the message says, as data, for the back office to write it in its language; null for an exception recorded before central kept it (its English message only)' },
    ),
  ),
  order: Nullable(ExceptionOrderSchema('the sale the subject names ("order 123"), looked up when listed; null for a subject about something else, or an order central does not hold')),
  mentioned_orders: Type.Array(ExceptionOrderSchema('a sale'), {
    description: 'the sales the message names by id (`message_data.params.order`: a reused receipt’s first sale, a repeated sale), looked up when listed; their customers are in `customers`; an order central does not hold is left out',
  }),
});

export const ChainHealthSchema = Type.Object({
  role: Type.Union([Type.Literal('central'), Type.Literal('store')]),
  nodes: Type.Array(StoreNodeHealthSchema),
  exceptions: Type.Array(ChainExceptionSchema),
});

export const ChainHealthQuery = Type.Object({ store: Type.Optional(Type.Integer({ minimum: 1 })), resolved: Type.Optional(Type.Boolean()) });
export const ResolveBody = Type.Object({ note: Type.String({ maxLength: 1000 }) });
