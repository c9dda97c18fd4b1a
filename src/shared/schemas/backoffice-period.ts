import { Type } from 'typebox';
import { LoyaltyFiguresSchema } from './backoffice-screens';
import { Nullable } from './common';

// The back office's statement of a period (a month to close): per day and store, with the quick-pay
// liability at its start and end (fifteenth round).

const Day = (description: string) => Type.String({ maxLength: 10, description, examples: ['2026-11-01'] });

export const PeriodQuery = Type.Object({
  from: Day('the first day, ISO (YYYY-MM-DD), in the time zone the statement is counted in'),
  to: Day('the last day, included; at most 366 days after from'),
  store: Type.Optional(Type.Integer({ minimum: 1, description: 'one store (a store manager’s is always theirs)' })),
});

const Money = (description: string) => Type.Integer({ description: `${description}; minor units of the quick-pay currency` });

const Figures = {
  check_ins: Type.Integer(),
  orders: Type.Integer({ description: 'orders placed and not voided' }),
  points_issued: Type.Integer({ description: 'points those orders earned, every loyalty currency together; per currency: loyalty' }),
  points_redeemed: Type.Integer({ description: 'points those orders redeemed, every loyalty currency together; per currency: loyalty' }),
  loyalty: LoyaltyFiguresSchema,
  stored_value_loaded: Money('reloads and eGifts claimed'),
  reload_amount: Money('of which reloads'),
  egift_amount: Money('of which eGifts claimed'),
  stored_value_spent: Money('paid with quick pay, voided since or not (positive)'),
  stored_value_returned: Money('given back by voids'),
  stored_value_adjusted: Money('net of staff adjustments'),
  stored_value_forfeited: Money('given up by customers who left (zero or negative)'),
  stored_value_paid_back: Money('paid back to customers, cash or card (positive)'),
  paid_back_to_cards: Money('of which refunded to their cards (the processor’s refunds)'),
  stored_value_other: Money('every other quick-pay move (between a customer’s accounts: nets to zero over the program)'),
  stored_value_net_change: Money('loaded − spent + returned + adjusted + forfeited − paid back + other'),
  egifts_sold_amount: Money('eGifts sold (their charge succeeded that day): the processor’s charges beside the reloads; not in the balances until claimed, then loaded'),
};
export const PeriodFiguresSchema = Type.Object(Figures);

export const PeriodStatementSchema = Type.Object({
  time_zone: Type.String({ description: 'the days are counted in this time zone' }),
  from: Type.String(),
  to: Type.String(),
  store: Nullable(Type.Integer({ description: 'the store shown; null: the whole program' })),
  quick_pay_currency: Nullable(Type.String({ description: 'ISO code of the stored value' })),
  opening_stored_value: Nullable(Type.Integer({ description: 'every quick-pay balance when the period began, minor units; null for one store' })),
  closing_stored_value: Nullable(Type.Integer({ description: 'when it ended (a period still running: now); closing − opening is total.stored_value_net_change' })),
  opening_unclaimed_egifts: Nullable(Type.Integer({ description: 'eGifts sold and not claimed when the period began, minor units: owed, in no balance; null for one store' })),
  closing_unclaimed_egifts: Nullable(Type.Integer({ description: 'when it ended; closing − opening is total.egifts_sold_amount − total.egift_amount' })),
  total: PeriodFiguresSchema,
  program: Nullable(Type.Object(Figures, { description: 'the moves made at no store (loads, adjustments, forfeits, pay-backs); null for one store' })),
  stores: Type.Array(Type.Object({ id: Type.Integer(), name: Type.String(), ...Figures })),
  days: Type.Array(
    Type.Object({
      day: Type.String(),
      store: Nullable(Type.Integer({ description: 'null: the program’s row' })),
      store_name: Nullable(Type.String()),
      ...Figures,
      outstanding_stored_value: Nullable(Type.Integer({ description: 'on the program’s row: every quick-pay balance at the end of the day' })),
      unclaimed_egift_amount: Nullable(Type.Integer({ description: 'on the program’s row: the eGifts sold and not claimed at the end of the day' })),
    }),
    { description: 'per day, oldest first: each store, then the program’s row' },
  ),
});
