// A customer's ledger entries by kind (the node's word, `ledger_entries.kind`) as the back office
// says them: the raw words (adjustment, spend_reversal) read as English on a Spanish screen.

export const LEDGER_KINDS: Record<'en' | 'es', Readonly<Record<string, string>>> = {
  en: {
    // Not "Points earned": a program's stamps are earned too (the row's currency says which).
    earn: 'Earned',
    earn_reversal: 'Earned, voided',
    redeem: 'Redeemed',
    redeem_reversal: 'Redeemed, voided',
    spend: 'Paid with stored value',
    spend_reversal: 'Payment voided, returned',
    promotion: 'Promotion',
    promotion_reversal: 'Promotion, voided',
    referral: 'Referral',
    expiry: 'Expired',
    expiry_return: 'Expiry undone',
    adjustment: 'Adjusted by staff',
    forfeit: 'Given up on leaving',
    payback: 'Paid back',
    reload: 'Reload',
    egift: 'eGift claimed',
    merge_in: 'Moved in from a merged account',
    merge_out: 'Moved to a merged account',
    card_value_in: 'From a linked card',
    card_value_out: 'Moved to an account',
    void_repeated: 'Repeated void undone',
    import: 'Brought from the previous program',
  },
  es: {
    earn: 'Ganado',
    earn_reversal: 'Ganado, anulado',
    redeem: 'Canjeado',
    redeem_reversal: 'Canjeado, anulado',
    spend: 'Pago con saldo',
    spend_reversal: 'Pago anulado, devuelto',
    promotion: 'Promoción',
    promotion_reversal: 'Promoción, anulada',
    referral: 'Referido',
    expiry: 'Vencido',
    expiry_return: 'Vencimiento deshecho',
    adjustment: 'Ajustado por el personal',
    forfeit: 'Renuncia al irse',
    payback: 'Devuelto al cliente',
    reload: 'Recarga',
    egift: 'eGift canjeado',
    merge_in: 'Traído de una cuenta unida',
    merge_out: 'Pasado a una cuenta unida',
    card_value_in: 'De una tarjeta vinculada',
    card_value_out: 'Pasado a una cuenta',
    void_repeated: 'Anulación repetida deshecha',
    import: 'Traído del programa anterior',
  },
};

/** The words for `kind`; a kind this screen does not know (a newer node's) as the node wrote it. */
export function ledgerKindWords(words: Readonly<Record<string, string>>, kind: string): string {
  return Object.hasOwn(words, kind) ? words[kind]! : kind;
}
