import { LANGUAGES, type LanguageCode } from '../../shared/languages';
import type { MessageTemplate } from './queue-message';

// The texts of every message the service sends, in each language customers can choose
// (src/shared/languages.ts: adding a language there makes this file fail to compile until every
// template has its translation). A template is written once as blocks; the plain text and the
// HTML of an email are both built from them, so they never drift apart.

export type MessageLocale = LanguageCode;
export type MessageChannel = 'email' | 'sms';

export const DEFAULT_LOCALE: MessageLocale = 'en';

/**
 * The channel each template is written for, the parameters it needs (no more, no less) and those
 * it may take (`optional`: left out, or an empty string, when there is nothing to say).
 */
export const TEMPLATES: Record<MessageTemplate, { channel: MessageChannel; params: readonly string[]; optional?: readonly string[] }> = {
  password_reset: { channel: 'email', params: ['first_name', 'token', 'vendor_name', 'expires_minutes'] },
  email_verification: { channel: 'email', params: ['first_name', 'token', 'vendor_name'] },
  sms_verification: { channel: 'sms', params: ['token', 'vendor_name'] },
  // `forfeits`: what the deletion gives up at the program ("KWD 5.000 and 120 Points"), when anything.
  account_deletion: { channel: 'email', params: ['first_name', 'code', 'vendor_name', 'expires_minutes'], optional: ['forfeits'] },
  // To the recipient of an eGift: who sent how much, and the claim code (first_name is the recipient's).
  egift_received: { channel: 'email', params: ['first_name', 'buyer_name', 'amount', 'vendor_name', 'code'], optional: ['message'] },
  // A saved card (billing profile) in its last month of validity.
  billing_profile_expiring: { channel: 'email', params: ['first_name', 'vendor_name', 'brand', 'last4', 'expiry'] },
  // To the program's admin: a webhook endpoint failed for days (or answered 410) and was disabled.
  webhook_endpoint_disabled: { channel: 'email', params: ['vendor_name', 'url', 'endpoint_id', 'reason', 'last_error'] },
  // Back office: an invitation to join a program's staff, and a staff password reset (link + code).
  // `role` and `store_name` (a store manager's store): absent in invitations queued before they were said.
  staff_invitation: { channel: 'email', params: ['name', 'vendor_name', 'inviter', 'link', 'code', 'expires_hours'], optional: ['role', 'store_name'] },
  staff_password_reset: { channel: 'email', params: ['name', 'vendor_name', 'link', 'code', 'expires_hours'] },
};

export function isMessageTemplate(value: string): value is MessageTemplate {
  return Object.hasOwn(TEMPLATES, value);
}

/**
 * The language a message is written in: `es`, `ES`, `es-EC` and `es_419` are Spanish; anything
 * unknown (or missing) falls back to English.
 */
export function resolveLocale(locale: string | null | undefined): MessageLocale {
  const primary = (locale ?? '').trim().toLowerCase().split(/[-_]/)[0];
  return LANGUAGES.find((language) => language.code === primary)?.code ?? DEFAULT_LOCALE;
}

export interface RenderedEmail {
  subject: string;
  text: string;
  html: string;
}

export interface RenderedSms {
  text: string;
}

/** A paragraph, or the one-time secret on a line of its own (`Code: 123456`). */
type Block = string | { label: string; code: string };

interface EmailCopy {
  subject: string;
  blocks: Block[];
}

type Params = Record<string, string>;

/** The role an invitation is for, after "manage <program>": "as a manager", "as the store manager of Market Street". */
const invitedAs: Record<MessageLocale, (p: Params) => string> = {
  en: (p) => ({ owner: ' as an owner', manager: ' as a manager', store_manager: ` as the store manager of ${p.store_name}` })[p.role ?? ''] ?? '',
  es: (p) => ({ owner: ' como propietario', manager: ' como gerente', store_manager: ` como gerente de la tienda ${p.store_name}` })[p.role ?? ''] ?? '',
};

// The Spanish says "usted" and never a gender (no "bienvenido", "invitado"), as every Spanish
// text a customer reads, the kiosk's and the join page's too (docs/decisions.md).
const emails: Record<Exclude<MessageTemplate, 'sms_verification'>, Record<MessageLocale, (p: Params) => EmailCopy>> = {
  password_reset: {
    en: (p) => ({
      subject: `Reset your ${p.vendor_name} password`,
      blocks: [
        `Hi ${p.first_name},`,
        `We received a request to reset the password of your ${p.vendor_name} account. Use this code to choose a new one:`,
        { label: 'Code', code: p.token! },
        `The code expires in ${p.expires_minutes} minutes. If you didn't ask to reset your password, you can ignore this email: your password stays the same.`,
        `— The ${p.vendor_name} team`,
      ],
    }),
    es: (p) => ({
      subject: `Restablezca su contraseña de ${p.vendor_name}`,
      blocks: [
        `¡Hola, ${p.first_name}!`,
        `Recibimos una solicitud para restablecer la contraseña de su cuenta de ${p.vendor_name}. Use este código para elegir una nueva:`,
        { label: 'Código', code: p.token! },
        `El código vence en ${p.expires_minutes} minutos. Si no pidió restablecer su contraseña, puede ignorar este correo: su contraseña no cambiará.`,
        `— El equipo de ${p.vendor_name}`,
      ],
    }),
  },
  email_verification: {
    en: (p) => ({
      subject: `Confirm your email address for ${p.vendor_name}`,
      blocks: [
        `Hi ${p.first_name},`,
        `Thanks for joining ${p.vendor_name}! To confirm that this email address is yours, enter this code in the app:`,
        { label: 'Code', code: p.token! },
        `If you didn't create an account with ${p.vendor_name}, you can ignore this email.`,
        `— The ${p.vendor_name} team`,
      ],
    }),
    es: (p) => ({
      subject: `Confirme su correo electrónico en ${p.vendor_name}`,
      blocks: [
        `¡Hola, ${p.first_name}!`,
        `¡Gracias por unirse a ${p.vendor_name}! Para confirmar que este correo es suyo, escriba este código en la app:`,
        { label: 'Código', code: p.token! },
        `Si no creó una cuenta en ${p.vendor_name}, puede ignorar este correo.`,
        `— El equipo de ${p.vendor_name}`,
      ],
    }),
  },
  account_deletion: {
    en: (p) => ({
      subject: `Confirm deleting your ${p.vendor_name} account`,
      blocks: [
        `Hi ${p.first_name},`,
        `We received a request to delete your ${p.vendor_name} account. To confirm it, use this code:`,
        { label: 'Code', code: p.code! },
        `The code expires in ${p.expires_minutes} minutes. Once deleted, your account can't be recovered. If you didn't ask for this, ignore this email and your account stays as it is.`,
        ...(p.forfeits ? [`Deleting your account gives up what you still hold with ${p.vendor_name}: ${p.forfeits}. It can't be refunded afterwards.`] : []),
        `— The ${p.vendor_name} team`,
      ],
    }),
    es: (p) => ({
      subject: `Confirme la eliminación de su cuenta de ${p.vendor_name}`,
      blocks: [
        `¡Hola, ${p.first_name}!`,
        `Recibimos una solicitud para eliminar su cuenta de ${p.vendor_name}. Para confirmarla, use este código:`,
        { label: 'Código', code: p.code! },
        `El código vence en ${p.expires_minutes} minutos. Una vez eliminada, su cuenta no se puede recuperar. Si no lo pidió, ignore este correo y su cuenta seguirá igual.`,
        ...(p.forfeits ? [`Al eliminar su cuenta renuncia a lo que aún tiene en ${p.vendor_name}: ${p.forfeits}. Después no se podrá devolver.`] : []),
        `— El equipo de ${p.vendor_name}`,
      ],
    }),
  },
  egift_received: {
    en: (p) => ({
      subject: `${p.buyer_name} sent you a ${p.amount} eGift for ${p.vendor_name}`,
      blocks: [
        `Hi ${p.first_name},`,
        `${p.buyer_name} sent you an eGift of ${p.amount} to spend at ${p.vendor_name}.`,
        ...(p.message ? [`Their message: “${p.message}”`] : []),
        `To claim it, log in to the ${p.vendor_name} app (or create an account there with any email address) and enter this code under eGifts. The amount is added to your quick-pay balance with ${p.vendor_name}:`,
        { label: 'Code', code: p.code! },
        `Keep the code to yourself: the gift goes to the first account that enters it.`,
        `— The ${p.vendor_name} team`,
      ],
    }),
    es: (p) => ({
      subject: `${p.buyer_name} le envió un eGift de ${p.amount} para ${p.vendor_name}`,
      blocks: [
        `¡Hola, ${p.first_name}!`,
        `${p.buyer_name} le envió un eGift de ${p.amount} para usar en ${p.vendor_name}.`,
        ...(p.message ? [`Su mensaje: «${p.message}»`] : []),
        `Para recibirlo, inicie sesión en la app de ${p.vendor_name} (o cree allí una cuenta con cualquier correo) y escriba este código en eGifts. El importe se suma a su saldo de pago rápido en ${p.vendor_name}:`,
        { label: 'Código', code: p.code! },
        `No comparta el código: el regalo es para la primera cuenta que lo escriba.`,
        `— El equipo de ${p.vendor_name}`,
      ],
    }),
  },
  billing_profile_expiring: {
    en: (p) => ({
      subject: `${p.vendor_name}: your ${p.brand} card ending in ${p.last4} expires soon`,
      blocks: [
        `Hi ${p.first_name},`,
        `The ${p.brand} card ending in ${p.last4} that you saved in your ${p.vendor_name} account expires at the end of ${p.expiry}. After that, reloads and automatic reloads charged to it will fail.`,
        `To keep reloading without interruption, add your new card in the ${p.vendor_name} app and make it your default card.`,
        `— The ${p.vendor_name} team`,
      ],
    }),
    es: (p) => ({
      subject: `${p.vendor_name}: su tarjeta ${p.brand} terminada en ${p.last4} vence pronto`,
      blocks: [
        `¡Hola, ${p.first_name}!`,
        `La tarjeta ${p.brand} terminada en ${p.last4} que guardó en su cuenta de ${p.vendor_name} vence al final de ${p.expiry}. Después de esa fecha, las recargas y recargas automáticas con esa tarjeta no funcionarán.`,
        `Para seguir recargando sin interrupciones, agregue su nueva tarjeta en la app de ${p.vendor_name} y márquela como predeterminada.`,
        `— El equipo de ${p.vendor_name}`,
      ],
    }),
  },
  webhook_endpoint_disabled: {
    en: (p) => ({
      subject: `${p.vendor_name}: webhook endpoint disabled`,
      blocks: [
        `The webhook endpoint ${p.url} (${p.endpoint_id}) of ${p.vendor_name} was disabled: ${p.reason}.`,
        `Last error: ${p.last_error}`,
        `No events are sent to it while it is disabled. Fix the receiver, turn the endpoint back on (PUT /webhooks/${p.endpoint_id} with status "enabled"), then replay the events it missed (POST /webhooks/${p.endpoint_id}/replay).`,
        `— Punchcard`,
      ],
    }),
    es: (p) => ({
      subject: `${p.vendor_name}: webhook desactivado`,
      blocks: [
        `El webhook ${p.url} (${p.endpoint_id}) de ${p.vendor_name} se desactivó: ${p.reason}.`,
        `Último error: ${p.last_error}`,
        `No se le envían eventos mientras esté desactivado. Corrija el receptor, vuelva a activarlo (PUT /webhooks/${p.endpoint_id} con status "enabled") y reenvíe los eventos que no recibió (POST /webhooks/${p.endpoint_id}/replay).`,
        `— Punchcard`,
      ],
    }),
  },
  staff_invitation: {
    en: (p) => ({
      subject: `${p.inviter} invited you to the ${p.vendor_name} back office`,
      blocks: [
        `Hi ${p.name},`,
        `${p.inviter} invited you to manage ${p.vendor_name}${invitedAs.en(p)}. Open this link to choose your password and sign in:`,
        p.link!,
        { label: 'Code', code: p.code! },
        `The invitation expires in ${p.expires_hours} hours.`,
      ],
    }),
    es: (p) => ({
      subject: `${p.inviter} le invitó a la administración de ${p.vendor_name}`,
      blocks: [
        `¡Hola, ${p.name}!`,
        `${p.inviter} le invitó a administrar ${p.vendor_name}${invitedAs.es(p)}. Abra este enlace para elegir su contraseña e iniciar sesión:`,
        p.link!,
        { label: 'Código', code: p.code! },
        `La invitación vence en ${p.expires_hours} horas.`,
      ],
    }),
  },
  staff_password_reset: {
    en: (p) => ({
      subject: `Reset your ${p.vendor_name} back office password`,
      blocks: [
        `Hi ${p.name},`,
        `Open this link to choose a new password for the ${p.vendor_name} back office:`,
        p.link!,
        { label: 'Code', code: p.code! },
        `The link expires in ${p.expires_hours} hours. If you didn't ask for it, ignore this email: your password stays the same.`,
      ],
    }),
    es: (p) => ({
      subject: `Restablezca su contraseña de administración de ${p.vendor_name}`,
      blocks: [
        `¡Hola, ${p.name}!`,
        `Abra este enlace para elegir una contraseña nueva para la administración de ${p.vendor_name}:`,
        p.link!,
        { label: 'Código', code: p.code! },
        `El enlace vence en ${p.expires_hours} horas. Si no lo pidió, ignore este correo: su contraseña no cambiará.`,
      ],
    }),
  },
};

const sms: Record<'sms_verification', Record<MessageLocale, (p: Params) => string>> = {
  sms_verification: {
    en: (p) => `${p.vendor_name}: your verification code is ${p.token}`,
    es: (p) => `${p.vendor_name}: su código de verificación es ${p.token}`,
  },
};

/**
 * Throws unless `params` has exactly the parameters the template needs, each a non-empty string,
 * plus any of its optional ones (strings, possibly empty).
 */
export function checkTemplateParams(template: MessageTemplate, params: Record<string, unknown>): void {
  const wanted = TEMPLATES[template].params;
  const optional = TEMPLATES[template].optional ?? [];
  const missing = wanted.filter((name) => typeof params[name] !== 'string' || (params[name] as string).trim() === '');
  const unknown = Object.keys(params).filter((name) => !wanted.includes(name) && !(optional.includes(name) && typeof params[name] === 'string'));
  if (missing.length > 0 || unknown.length > 0) {
    const problems = [missing.length > 0 ? `missing ${missing.join(', ')}` : '', unknown.length > 0 ? `unknown ${unknown.join(', ')}` : ''];
    throw new TypeError(`Message template ${template} takes ${wanted.join(', ')}: ${problems.filter(Boolean).join('; ')}.`);
  }
}

/** Values go inline in sentences and headers: one line, no control characters. */
function inline(params: Params): Params {
  const out: Params = {};
  for (const [key, value] of Object.entries(params)) out[key] = value.replace(/[\s\p{Cc}]+/gu, ' ').trim();
  return out;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function toText(blocks: Block[]): string {
  return `${blocks.map((block) => (typeof block === 'string' ? block : `${block.label}: ${block.code}`)).join('\n\n')}\n`;
}

function toHtml(locale: MessageLocale, subject: string, blocks: Block[]): string {
  const body = blocks
    .map((block) =>
      typeof block === 'string'
        ? `<p>${escapeHtml(block)}</p>`
        : `<p>${escapeHtml(block.label)}: <strong style="font-family:monospace;font-size:1.4em;letter-spacing:0.1em">${escapeHtml(block.code)}</strong></p>`,
    )
    .join('\n');
  return [
    '<!doctype html>',
    `<html lang="${locale}">`,
    `<head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>`,
    '<body style="font-family:Helvetica,Arial,sans-serif;line-height:1.5;color:#222;max-width:36em">',
    body,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

/**
 * The subject, plain text and HTML of an email template, or the text of an SMS template, in the
 * given language (unknown languages fall back to English).
 */
export function renderMessage(template: 'sms_verification', locale: string, params: Params): RenderedSms;
export function renderMessage(template: Exclude<MessageTemplate, 'sms_verification'>, locale: string, params: Params): RenderedEmail;
export function renderMessage(template: MessageTemplate, locale: string, params: Params): RenderedEmail | RenderedSms;
export function renderMessage(template: MessageTemplate, locale: string, params: Params): RenderedEmail | RenderedSms {
  if (!isMessageTemplate(template)) throw new TypeError(`Unknown message template ${String(template)}.`);
  checkTemplateParams(template, params);
  const language = resolveLocale(locale);
  const values = inline(params);
  if (template === 'sms_verification') return { text: sms[template][language](values) };
  const copy = emails[template][language](values);
  return { subject: copy.subject, text: toText(copy.blocks), html: toHtml(language, copy.subject, copy.blocks) };
}
