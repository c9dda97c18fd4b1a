// Why a row of a members file was not imported, in words a merchant reads, English and Spanish: the
// back office's preview and report and the file of problem rows it hands back say these (the reason
// codes are the CLI's, README "Importing members"). A code not listed here (a card rule's) keeps the
// node's own message.

export type ImportLanguage = 'en' | 'es';

const WORDS: Record<ImportLanguage, Record<string, string>> = {
  en: {
    no_contact: 'No email, phone or card: a member needs one to be found at the counter.',
    invalid_email: 'The email is not an email address.',
    invalid_phone: 'The phone is not a phone number of the program’s country, nor one written with its +code.',
    invalid_name: 'A name is longer than 100 characters.',
    invalid_card_number: 'The card number may have only letters and digits (64 at most).',
    invalid_amount: 'An amount is not a plain number: digits and one decimal mark, no thousands separator, sign or currency.',
    too_many_decimals: 'An amount has more decimals than its currency.',
    amount_too_large: 'An amount is more than an opening balance may be (10,000,000.00).',
    duplicate_in_file: 'An earlier row has the same email, phone or card: one member, one row.',
    account_not_member: 'The email, phone or card belongs to someone who is not a member here: enrol them at the counter.',
    card_not_active: 'The card is blocked or archived in this program.',
    no_points_currency: 'The program has no loyalty currency for these points.',
    no_quick_pay_currency: 'The program has no quick-pay currency for this balance.',
    invalid_birthdate: 'The date of birth is not a date: write it as 1990-03-15 or 15/03/1990.',
    birthdate_out_of_range: 'The date of birth is in the future or more than 120 years ago: a year mistyped?',
    invalid_consent: 'A marketing consent is neither yes nor no: leave it empty when the old system does not know.',
    invalid_expiry_date: 'The date the points expire on is not a date: write it as 2027-03-15 or 15/03/2027.',
    expiry_in_the_past: 'The last day of the points has passed: they have expired already. Leave the cell empty for the program’s points expiry.',
    unsupported_language: 'The language is not one the program speaks (en, es): leave it empty for the program’s language.',
    contact_taken: 'Someone registered this email or card while the row was imported.',
    card_value_claimed: 'The card’s value was already moved to another account.',
    already_member: 'Already a member: left as they are.',
  },
  es: {
    no_contact: 'No tiene correo, teléfono ni tarjeta: un socio necesita uno para que lo encuentren en caja.',
    invalid_email: 'El correo no es una dirección de correo.',
    invalid_phone: 'El teléfono no es un número del país del programa ni uno escrito con su +código.',
    invalid_name: 'Un nombre tiene más de 100 caracteres.',
    invalid_card_number: 'El número de tarjeta solo puede tener letras y dígitos (64 como máximo).',
    invalid_amount: 'Un importe no es un número simple: dígitos y un separador decimal, sin separador de miles, signo ni moneda.',
    too_many_decimals: 'Un importe tiene más decimales que su moneda.',
    amount_too_large: 'Un importe supera lo que puede ser un saldo inicial (10.000.000,00).',
    duplicate_in_file: 'Una fila anterior tiene el mismo correo, teléfono o tarjeta: un socio, una fila.',
    account_not_member: 'El correo, el teléfono o la tarjeta es de alguien que no es socio aquí: inscríbalo en caja.',
    card_not_active: 'La tarjeta está bloqueada o archivada en este programa.',
    no_points_currency: 'El programa no tiene una moneda de fidelidad para estos puntos.',
    no_quick_pay_currency: 'El programa no tiene una moneda de pago rápido para este saldo.',
    invalid_birthdate: 'La fecha de nacimiento no es una fecha: escríbala como 15/03/1990 o 1990-03-15.',
    birthdate_out_of_range: 'La fecha de nacimiento es futura o de hace más de 120 años: ¿un año mal escrito?',
    invalid_consent: 'Un consentimiento de publicidad no es ni sí ni no: déjelo vacío si el sistema anterior no lo sabe.',
    invalid_expiry_date: 'La fecha de vencimiento de los puntos no es una fecha: escríbala como 15/03/2027 o 2027-03-15.',
    expiry_in_the_past: 'El último día de los puntos ya pasó: ya vencieron. Deje la celda vacía para usar el vencimiento de puntos del programa.',
    unsupported_language: 'El idioma no es uno que hable el programa (en, es): déjelo vacío para usar el del programa.',
    contact_taken: 'Alguien registró este correo o tarjeta mientras se importaba la fila.',
    card_value_claimed: 'El saldo de la tarjeta ya se pasó a otra cuenta.',
    already_member: 'Ya es socio: se deja como está.',
  },
};

/** The reason in words; `fallback` (the node's message) for a code not listed. */
export function importReasonWords(reason: string, language: ImportLanguage, fallback: string): string {
  return WORDS[language][reason] ?? fallback;
}
