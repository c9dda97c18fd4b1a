import { describe, expect, it } from 'vitest';
import { describeFailure, isPermanentFailure, MessageDeliveryError } from '../../src/core/messaging/delivery-error';
import type { MessageTemplate } from '../../src/core/messaging/queue-message';
import { renderMessage, resolveLocale, TEMPLATES } from '../../src/core/messaging/templates';
import { LANGUAGES } from '../../src/shared/languages';
import { extractCode } from '../support/mailbox';

const params: Record<MessageTemplate, Record<string, string>> = {
  password_reset: { first_name: 'Ana', token: 'RST-9F3K-22', vendor_name: 'Café Luna', expires_minutes: '30' },
  email_verification: { first_name: 'Ana', token: 'VRF-77QX', vendor_name: 'Café Luna' },
  sms_verification: { token: '482913', vendor_name: 'Café Luna' },
  account_deletion: { first_name: 'Ana', code: '913204', vendor_name: 'Café Luna', expires_minutes: '15' },
  egift_received: { first_name: 'Ana', buyer_name: 'Mateo', amount: '$25.00', vendor_name: 'Café Luna', code: 'GFT1-2345-6789-ABCD', message: 'Happy birthday!' },
  billing_profile_expiring: { first_name: 'Ana', vendor_name: 'Café Luna', brand: 'Visa', last4: '4242', expiry: '11/2026' },
  webhook_endpoint_disabled: { vendor_name: 'Café Luna', url: 'https://crm.example.com/hooks', endpoint_id: 'wh_0123456789abcdefghjk', reason: 'it failed for 3 days', last_error: 'HTTP 503' },
  staff_invitation: { name: 'Ana', vendor_name: 'Café Luna', inviter: 'owner@cafeluna.ec', link: 'http://127.0.0.1:4321/admin#/accept?token=INV-1', code: 'pcsi_INV-1', expires_hours: '72' },
  staff_password_reset: { name: 'Ana', vendor_name: 'Café Luna', link: 'http://127.0.0.1:4321/admin#/reset?token=RST-1', code: 'pcsr_RST-1', expires_hours: '2' },
};
/** What identifies each template's text: its one-time code, or (a reminder or an alert, which have none) the card's last digits or the endpoint. */
const secretOf = (template: MessageTemplate) => params[template].token ?? params[template].code ?? params[template].last4 ?? params[template].endpoint_id!;
/** Email templates that carry a one-time code on a line of its own. */
const emailTemplates = (Object.keys(TEMPLATES) as MessageTemplate[]).filter((t) => TEMPLATES[t].channel === 'email' && TEMPLATES[t].params.some((p) => p === 'token' || p === 'code'));

describe('message templates', () => {
  it('exist for every template in every language customers can choose', () => {
    for (const template of Object.keys(TEMPLATES) as MessageTemplate[]) {
      for (const { code } of LANGUAGES) {
        const rendered = renderMessage(template, code, params[template]);
        expect(rendered.text, `${template}/${code}`).toContain('Café Luna');
        expect(rendered.text, `${template}/${code}`).toContain(secretOf(template));
        expect(JSON.stringify(rendered), `${template}/${code}`).not.toMatch(/undefined|null|\$\{/);
      }
    }
  });

  it('put the code of every email on a line of its own, in the text and the HTML', () => {
    for (const template of emailTemplates) {
      for (const { code } of LANGUAGES) {
        const email = renderMessage(template, code, params[template]) as { subject: string; text: string; html: string };
        expect(extractCode(email.text), `${template}/${code}`).toBe(secretOf(template));
        expect(email.subject, `${template}/${code}`).toContain('Café Luna');
        expect(email.text).toMatch(code === 'es' ? /^¡Hola, Ana!$/m : /^Hi Ana,$/m);
        expect(email.html).toContain(`<html lang="${code}">`);
        expect(email.html).toContain(`<strong style="font-family:monospace;font-size:1.4em;letter-spacing:0.1em">${secretOf(template)}</strong>`);
        expect(email.text).not.toMatch(/<[a-z]/i);
      }
    }
  });

  it('read naturally in English and Spanish', () => {
    const en = renderMessage('password_reset', 'en', params.password_reset);
    expect(en.subject).toBe('Reset your Café Luna password');
    expect(en.text).toBe(
      [
        'Hi Ana,',
        'We received a request to reset the password of your Café Luna account. Use this code to choose a new one:',
        'Code: RST-9F3K-22',
        "The code expires in 30 minutes. If you didn't ask to reset your password, you can ignore this email: your password stays the same.",
        '— The Café Luna team',
      ].join('\n\n') + '\n',
    );
    const es = renderMessage('account_deletion', 'es-EC', params.account_deletion);
    expect(es.subject).toBe('Confirme la eliminación de su cuenta de Café Luna');
    expect(es.text).toContain('Recibimos una solicitud para eliminar su cuenta de Café Luna.');
    expect(es.text).toMatch(/^Código: 913204$/m);
    expect(es.text).toContain('El código vence en 15 minutos.');
    expect(renderMessage('email_verification', 'es', params.email_verification).subject).toBe('Confirme su correo electrónico en Café Luna');
    expect(renderMessage('email_verification', 'en', params.email_verification).subject).toBe('Confirm your email address for Café Luna');
  });

  it('tell an eGift recipient who sent what, with the claim code, in English and Spanish', () => {
    const en = renderMessage('egift_received', 'en', params.egift_received);
    expect(en.subject).toBe('Mateo sent you a $25.00 eGift for Café Luna');
    expect(en.text).toContain('Mateo sent you an eGift of $25.00 to spend at Café Luna.');
    expect(en.text).toContain('Their message: “Happy birthday!”');
    expect(en.text).toContain('log in to the Café Luna app (or create an account there');
    expect(extractCode(en.text)).toBe('GFT1-2345-6789-ABCD');
    const es = renderMessage('egift_received', 'es', params.egift_received);
    expect(es.subject).toBe('Mateo le envió un eGift de $25.00 para Café Luna');
    expect(es.text).toContain('Su mensaje: «Happy birthday!»');
    expect(extractCode(es.text)).toBe('GFT1-2345-6789-ABCD');
    // The buyer's message is optional: without it (or empty) the paragraph is left out.
    const { message: _message, ...withoutMessage } = params.egift_received;
    expect(renderMessage('egift_received', 'en', withoutMessage).text).not.toContain('Their message');
    expect(renderMessage('egift_received', 'en', { ...withoutMessage, message: '' }).text).not.toContain('Their message');
    expect(() => renderMessage('egift_received', 'en', { ...withoutMessage, message: 3 as unknown as string })).toThrow(/unknown message/);
  });

  it('remind of a saved card in its last month, without any code', () => {
    const en = renderMessage('billing_profile_expiring', 'en', params.billing_profile_expiring);
    expect(en.subject).toBe('Café Luna: your Visa card ending in 4242 expires soon');
    expect(en.text).toContain('expires at the end of 11/2026');
    expect(extractCode(en.text)).toBeUndefined();
    const es = renderMessage('billing_profile_expiring', 'es', params.billing_profile_expiring);
    expect(es.subject).toBe('Café Luna: su tarjeta Visa terminada en 4242 vence pronto');
    expect(es.text).toMatch(/^¡Hola, Ana!$/m);
  });

  it('write SMS as one short line with the code', () => {
    expect(renderMessage('sms_verification', 'en', params.sms_verification)).toEqual({ text: 'Café Luna: your verification code is 482913' });
    expect(renderMessage('sms_verification', 'es', params.sms_verification)).toEqual({ text: 'Café Luna: su código de verificación es 482913' });
    const long = renderMessage('sms_verification', 'es', { token: '482913', vendor_name: 'A'.repeat(60) });
    expect(long.text.length).toBeLessThanOrEqual(160);
    expect(long.text).not.toContain('\n');
  });

  it('escape names in HTML and keep them on one line in subjects', () => {
    const email = renderMessage('email_verification', 'en', { first_name: '<script>alert(1)</script>', token: 'T0K3N', vendor_name: 'Tom & Jerry\r\nBcc: evil@example.com' });
    expect(email.html).not.toContain('<script>');
    expect(email.html).toContain('&#60;script&#62;');
    expect(email.html).toContain('Tom &#38; Jerry');
    expect(email.subject).toBe('Confirm your email address for Tom & Jerry Bcc: evil@example.com');
    expect(email.subject).not.toMatch(/[\r\n]/);
  });

  it('choose the language from the customer language, English when unknown', () => {
    expect(['es', 'ES', 'es-EC', 'es_419', ' es '].map(resolveLocale)).toEqual(['es', 'es', 'es', 'es', 'es']);
    expect(['en', 'en-GB', 'fr', 'pt-BR', '', null, undefined, 'espanol'].map(resolveLocale)).toEqual(Array(8).fill('en'));
    expect(renderMessage('password_reset', 'de', params.password_reset).subject).toBe('Reset your Café Luna password');
  });

  it('refuse missing or unknown parameters', () => {
    expect(() => renderMessage('password_reset', 'en', { first_name: 'Ana', vendor_name: 'X', expires_minutes: '30' })).toThrow(/missing token/);
    expect(() => renderMessage('sms_verification', 'en', { token: '1', vendor_name: 'X', first_name: 'Ana' })).toThrow(/unknown first_name/);
    expect(() => renderMessage('sms_verification', 'en', { token: ' ', vendor_name: 'X' })).toThrow(/missing token/);
  });
});

describe('delivery errors', () => {
  it('are permanent only when the transport says so', () => {
    expect(isPermanentFailure(new MessageDeliveryError('550 rejected', { permanent: true }))).toBe(true);
    expect(isPermanentFailure(new MessageDeliveryError('421 busy', { permanent: false }))).toBe(false);
    expect(isPermanentFailure(new Error('anything else'))).toBe(false);
    expect(isPermanentFailure('a string')).toBe(false);
  });

  it('are described on one line, with their code, without secrets', () => {
    const error = Object.assign(new Error('connect ECONNREFUSED\n  at smtps://u:p@host'), { code: 'ESOCKET' });
    expect(describeFailure(error)).toBe('ESOCKET: connect ECONNREFUSED at smtps://[redacted]@host');
    expect(describeFailure(new Error('code 123456 and abc'), ['123456', 'abc'])).toBe('code [redacted] and abc');
  });
});
