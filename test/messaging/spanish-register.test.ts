import { describe, expect, it } from 'vitest';
import { spanishOf } from '../../src/renderer/src/api/node-messages-es';
import { CONTENT_SLUGS } from '../../src/shared/schemas/consumer';
import { ERROR_CODES, type ErrorCode } from '../../src/shared/errors';
import { defaultPage } from '../../src/core/content/default-pages';
import { programMessage, type ProgramMessageKind } from '../../src/core/inbox/program-messages';
import type { MessageTemplate } from '../../src/core/messaging/queue-message';
import { renderMessage, TEMPLATES } from '../../src/core/messaging/templates';

// Every Spanish text a customer (or a staff member, by mail) reads says "usted" and never a gender,
// as the kiosk and the screens do: the mail and the app inbox said "tú" ("Gracias por unirte…
// revisa tus recompensas"), so one customer met two registers in one day. The words below are the
// "tú" forms and gendered greetings those texts used; none may come back.
const TU = /\b(tu|tus|te|ti|tuyo|tuya|puedes|tienes|usa|ingresa|confirma|restablece|unirte|pediste|creaste|guardaste|recibiste|alcanzaste|agrega|abre|ignora|corrige|compartas|pide|disfruta|gana|revisa)\b|¡\s*bienvenid[oa]s?\b/i;

const KINDS: ProgramMessageKind[] = ['welcome', 'tier', 'reward', 'egift'];

function spanishTexts(): Array<[string, string]> {
  const texts: Array<[string, string]> = [];
  for (const template of Object.keys(TEMPLATES) as MessageTemplate[]) {
    const spec = TEMPLATES[template];
    const params = Object.fromEntries([...spec.params, ...(spec.optional ?? [])].map((name) => [name, name === 'role' ? 'manager' : 'X']));
    const rendered = renderMessage(template, 'es', params);
    texts.push([template, 'subject' in rendered ? `${rendered.subject}\n${rendered.text}` : rendered.text]);
  }
  for (const kind of KINDS) {
    const message = programMessage(kind, 'es', { vendor: 'X', tier: 'X', reward: 'X', currency: 'X', buyer: 'X', amount: 'X' });
    texts.push([`inbox ${kind}`, `${message.title}\n${message.body}`]);
  }
  for (const slug of CONTENT_SLUGS) {
    const page = defaultPage(slug, 'es', 'X');
    texts.push([`page ${slug}`, `${page.title}\n${page.content.replace(/<[^>]+>/g, ' ')}`]);
  }
  // The node's refusals as a Spanish screen says them (a customer's own, "stored_value_remaining", said "tú").
  for (const code of Object.keys(ERROR_CODES) as ErrorCode[]) {
    const said = spanishOf(code, ERROR_CODES[code].message);
    if (said) texts.push([`refusal ${code}`, said]);
  }
  return texts;
}

describe('Spanish customers read "usted", without a gender', () => {
  it('in every mail, SMS, inbox message, default page and refusal a screen translates', () => {
    const found = spanishTexts().flatMap(([name, text]) => text.split('\n').filter((line) => TU.test(line)).map((line) => `${name}: ${line}`));
    expect(found).toEqual([]);
  });

  it('the welcome greets without a gender', () => {
    expect(programMessage('welcome', 'es', { vendor: 'Café Lupe' }).title).toBe('¡Le damos la bienvenida a Café Lupe!');
  });
});
