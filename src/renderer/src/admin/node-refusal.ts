import { errorMessage, NodeApiError } from '../api/client';
import { type Language, languageStore } from '../i18n/language-store';
import { useAdminStrings } from './strings';
import { useWebhookStrings } from './webhooks-strings';

/**
 * The node's validation sentences (src/server/errors/validation-message.ts and the use cases'
 * checks: "<field> is required.", "<field> must be greater than N." …) said with the form's own
 * label for the field, in the screen's language. The field is the one the reply names (`field`);
 * the sentence only says what is wrong with it. A sentence of any other shape, or any other
 * refusal, is the node's message as it came.
 */

/** A form's labels by the node's field name (`per_amount`, `hours.mon`, `name`). */
export type FieldLabels = Readonly<Record<string, string>>;

type Say = (label: string, value: string) => string;
interface Shape {
  tail: RegExp;
  en: Say;
  es: Say;
}

// Each tail follows "<field> " in the node's sentence; `value` is the tail's capture.
const SHAPES: readonly Shape[] = [
  { tail: /^is required\.$/, en: (l) => `${l} is required.`, es: (l) => `«${l}» es obligatorio.` },
  { tail: /^must not be empty\.$/, en: (l) => `${l} must not be empty.`, es: (l) => `«${l}» no puede estar vacío.` },
  { tail: /^must be at most (\d[\d,]*) characters?\.$/, en: (l, n) => `${l} must be at most ${n} characters.`, es: (l, n) => `«${l}» debe tener como máximo ${esNumber(n)} caracteres.` },
  { tail: /^must be (\d[\d,]* to \d[\d,]*) characters\.$/, en: (l, r) => `${l} must be ${r} characters.`, es: (l, r) => `«${l}» debe tener de ${esNumber(r).replace(' to ', ' a ')} caracteres.` },
  { tail: /^must be at least (\d[\d,]*) characters?\.$/, en: (l, n) => `${l} must be at least ${n} characters.`, es: (l, n) => `«${l}» debe tener al menos ${esNumber(n)} caracteres.` },
  { tail: /^must be at least (-?\d[\d,.]*)\.$/, en: (l, n) => `${l} must be at least ${n}.`, es: (l, n) => `«${l}» debe ser al menos ${esNumber(n)}.` },
  { tail: /^must be at most (-?\d[\d,.]*)\.$/, en: (l, n) => `${l} must be at most ${n}.`, es: (l, n) => `«${l}» debe ser como máximo ${esNumber(n)}.` },
  { tail: /^must be greater than (-?\d[\d,.]*)\.$/, en: (l, n) => `${l} must be more than ${n}.`, es: (l, n) => `«${l}» debe ser mayor que ${esNumber(n)}.` },
  { tail: /^must be less than (-?\d[\d,.]*)\.$/, en: (l, n) => `${l} must be less than ${n}.`, es: (l, n) => `«${l}» debe ser menor que ${esNumber(n)}.` },
  { tail: /^must be at most (-?\d[\d,.]*(?: [A-Za-z][\w ]*)?) either way\.$/, en: (l, n) => `${l} must be at most ${n} either way.`, es: (l, n) => `«${l}» debe ser como máximo ${esAmount(n)}, en más o en menos.` },
  { tail: /^must be one of: (.+)\.$/, en: (l, v) => `${l} must be one of: ${v}.`, es: (l, v) => `«${l}» debe ser uno de: ${v}.` },
  { tail: /^must have at least (\d+) items?\.$/, en: (l, n) => `${l} must have at least ${n} ${n === '1' ? 'item' : 'items'}.`, es: (l, n) => `«${l}» debe tener al menos ${n} ${n === '1' ? 'elemento' : 'elementos'}.` },
  { tail: /^must have at most (\d+) items?\.$/, en: (l, n) => `${l} must have at most ${n} ${n === '1' ? 'item' : 'items'}.`, es: (l, n) => `«${l}» debe tener como máximo ${n} ${n === '1' ? 'elemento' : 'elementos'}.` },
  { tail: /^must be an integer\.$/, en: (l) => `${l} must be a whole number.`, es: (l) => `«${l}» debe ser un número entero.` },
  { tail: /^must be a number\.$/, en: (l) => `${l} must be a number.`, es: (l) => `«${l}» debe ser un número.` },
  { tail: /^must be a valid email address\.$/, en: (l) => `${l} must be a valid email address.`, es: (l) => `«${l}» debe ser un correo electrónico válido.` },
  { tail: /^must be a valid URL\.$/, en: (l) => `${l} must be a valid URL.`, es: (l) => `«${l}» debe ser una URL válida.` },
  { tail: /^is not in the expected format\.$/, en: (l) => `${l} is not in the expected format.`, es: (l) => `«${l}» no tiene el formato esperado.` },
  { tail: /^is not an accepted value\.$/, en: (l) => `${l} is not an accepted value.`, es: (l) => `«${l}» no es un valor aceptado.` },
  {
    tail: /^must be "closed" or ranges like "([^"]+)"\.$/,
    en: (l, v) => `${l} must be “closed” or ranges like ${v}.`,
    es: (l, v) => `«${l}» debe ser «closed» o franjas como ${v}.`,
  },
];

/** 1,000,000 → 1.000.000 (and 12.50 → 12,50): the Spanish way of writing the node's numbers. */
function esNumber(n: string): string {
  return n.replace(/[.,]/g, (c) => (c === ',' ? '.' : ','));
}

/** "10,000,000.00 USD" → "10.000.000,00 USD"; units after the number stay. */
function esAmount(text: string): string {
  return text.replace(/-?\d[\d,.]*/, esNumber);
}

/** A form label without its hint in brackets: "Reason to block (required)" → "Reason to block". */
export function withoutHint(label: string): string {
  return label.replace(/\s*\([^)]*\)\s*$/, '');
}

/**
 * The node's validation sentence about `field` (the reply's) with the form's label and in
 * `language`; null when the sentence is not about that field ("metadata.x must …" for `metadata`),
 * the form has no label for it, or its shape is not known here. Without a field (no reply the
 * node sends today names none for a sentence of this kind: those without one say nothing of a
 * field) the sentence's first word is taken as the field, as before replies carried it.
 */
export function describeNodeSentence(message: string, labels: FieldLabels, language: Language, field: string | null = null): string | null {
  const subject = field ?? /^([A-Za-z_][\w]*(?:\.[\w]+)*) /.exec(message)?.[1];
  if (subject === undefined || !message.startsWith(`${subject} `)) return null;
  // Own keys only: a field the node names is never a property every object has ("constructor").
  const label = Object.hasOwn(labels, subject) ? labels[subject] : undefined;
  if (label === undefined) return null;
  const tail = message.slice(subject.length + 1);
  for (const shape of SHAPES) {
    const found = shape.tail.exec(tail);
    if (found) return shape[language](withoutHint(label), found[1] ?? '');
  }
  return null;
}

/**
 * What a form shows for a failed call: a validation refusal (400 `validation_failed`) in the
 * form's words and the screen's language, anything else as the node said it.
 */
export function refusalText(error: unknown, labels: FieldLabels = adminFieldLabels(languageStore.getState().language)): string {
  const message = errorMessage(error);
  if (!(error instanceof NodeApiError) || error.code !== 'validation_failed') return message;
  return describeNodeSentence(message, labels, languageStore.getState().language, error.field) ?? message;
}

/**
 * The back office's labels with a form's own for the fields it names otherwise: three forms have a
 * `reason` ("Reason for the adjustment", "Reason to block", "Who asked, and how"), and a refusal
 * names the field as the form in front of the reader does.
 */
export function formLabels(own: FieldLabels): FieldLabels {
  return { ...adminFieldLabels(languageStore.getState().language), ...own };
}

const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;

/** The back office's forms' labels for the fields the node names (one field has one label on every form). */
export function adminFieldLabels(language: Language): FieldLabels {
  const t = useAdminStrings.all[language];
  const w = useWebhookStrings.all[language];
  return {
    name: t.name,
    status: t.status,
    address: t.address,
    city: t.city,
    region: t.region,
    postal_code: t.postalCode,
    country: t.country,
    phone: t.phone,
    time_zone: t.timeZone,
    hours: t.hours,
    ...Object.fromEntries(DAYS.map((d) => [`hours.${d}`, `${t.hours}: ${t[`day_${d}`]}`])),
    label: t.label,
    email: t.email,
    password: t.password,
    amount: t.amount,
    reason: t.reason,
    points: t.points,
    per_amount: t.perAmount,
    cost: t.cost(t.pointsUnit),
    threshold: t.threshold(t.pointsUnit),
    window_days: t.windowDays,
    tier_currency: t.tierCurrency,
    code: t.code,
    points_expiry_days: t.expiryDays,
    quick_pay_per_order: t.quickPayPerOrder,
    quick_pay_per_day: t.quickPayPerDay,
    points_per_order: t.pointsPerOrder,
    points_per_day: t.pointsPerDay,
    title: t.pageTitle,
    url: w.url,
    events: w.events,
    description: w.description,
    alert_email: w.alertEmail,
  };
}
