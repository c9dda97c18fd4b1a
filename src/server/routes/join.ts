import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { findReferrer, joinByReferral, type Referrer } from '../../core/customers/join-by-referral';
import type { Engine } from '../../core/engine';
import { isServiceError } from '../../shared/errors';
import { rateLimited } from '../http/rate-limit';
import { DEFAULT_RATE_LIMITS, type RateLimitSettings, rateRule, validatedField } from '../http/rate-limits';

// The referral page (issue 17, item 4): the referral_url of a profile (/join?vendor=…&ref=…, or
// /join?code=…) serves a small sign-up page for the program, in English or Spanish (?lang=, else
// the browser's Accept-Language); joining credits the referrer by the program's rule.

const TEXT = {
  en: {
    title: (program: string) => `Join ${program}`,
    invited: (name: string, program: string) => `${name} invited you to ${program}. Join and start earning points on every visit.`,
    firstName: 'First name',
    lastName: 'Last name',
    email: 'Email address',
    password: 'Password (8 characters or more)',
    terms: 'I accept the terms of the program',
    submit: 'Join',
    done: (name: string) => `Welcome, ${name}!`,
    doneText: (program: string) => `You are a member of ${program}. Show your email or phone at the counter to check in.`,
    invalid: 'This invitation link is not valid.',
    failed: 'We could not sign you up',
    tooMany: (seconds: string) => `Too many sign-up attempts. Please wait ${seconds} seconds and try again.`,
    centralUnreachable: 'We cannot reach the program right now, so we could not sign you up. Please try again in a few minutes.',
  },
  es: {
    title: (program: string) => `Únase a ${program}`,
    invited: (name: string, program: string) => `${name} le invitó a ${program}. Únase y sume puntos en cada visita.`,
    firstName: 'Nombre',
    lastName: 'Apellidos',
    email: 'Correo electrónico',
    password: 'Contraseña (8 caracteres o más)',
    terms: 'Acepto las condiciones del programa',
    submit: 'Unirme',
    // "¡Bienvenido!" was masculine for everyone: usted, no gender, as the kiosk says it.
    done: (name: string) => `¡Hola, ${name}!`,
    doneText: (program: string) => `Ya es miembro de ${program}. Diga su correo o teléfono en caja para registrar su llegada.`,
    invalid: 'Este enlace de invitación no es válido.',
    failed: 'No pudimos darle de alta',
    tooMany: (seconds: string) => `Demasiados intentos de alta. Espere ${seconds} segundos y vuelva a intentarlo.`,
    centralUnreachable: 'Ahora mismo no podemos comunicarnos con el programa, así que no pudimos darle de alta. Vuelva a intentarlo en unos minutos.',
  },
};
type Lang = keyof typeof TEXT;

const escape = (value: string) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function languageOf(query: string | undefined, acceptLanguage: string | undefined): Lang {
  if (query === 'es' || query === 'en') return query;
  return /^es\b/i.test(acceptLanguage ?? '') ? 'es' : 'en';
}

/** The page in `lang`; its language links keep the invitation (`code`), which the page is about. */
function page(lang: Lang, title: string, body: string, code = ''): string {
  const link = (to: Lang) => escape(`?${code ? `code=${encodeURIComponent(code)}&` : ''}lang=${to}`);
  return `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escape(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem;color:#1a1a1a}label{display:block;margin:.8rem 0 .2rem}input[type=text],input[type=email],input[type=password]{width:100%;padding:.6rem;font-size:1rem;box-sizing:border-box}button{margin-top:1rem;padding:.7rem 1.6rem;font-size:1rem;background:#0ca678;color:#fff;border:0;border-radius:6px}.error{background:#ffe3e3;padding:.6rem;border-radius:6px}nav a{margin-right:.8rem}</style></head>
<body><nav><a href="${link('en')}" hreflang="en">English</a><a href="${link('es')}" hreflang="es">Español</a></nav><main>${body}</main></body></html>`;
}

function form(lang: Lang, code: string, referrer: Referrer, error: string | null, values: Record<string, string> = {}): string {
  const t = TEXT[lang];
  const field = (name: string, label: string, type: string) =>
    `<label for="${name}">${escape(label)}</label><input id="${name}" name="${name}" type="${type}" required value="${type === 'password' ? '' : escape(values[name] ?? '')}">`;
  return page(
    lang,
    t.title(referrer.vendorName),
    `<h1>${escape(t.title(referrer.vendorName))}</h1><p>${escape(t.invited(referrer.firstName || '…', referrer.vendorName))}</p>
${error ? `<p class="error" role="alert"><strong>${escape(t.failed)}</strong>: ${escape(error)}</p>` : ''}
<form method="post" action="/join?lang=${lang}"><input type="hidden" name="code" value="${escape(code)}">
${field('first_name', t.firstName, 'text')}${field('last_name', t.lastName, 'text')}${field('email_address', t.email, 'email')}${field('password', t.password, 'password')}
<label><input type="checkbox" name="terms" value="true" required> ${escape(t.terms)}</label>
<button type="submit">${escape(t.submit)}</button></form>`,
    code,
  );
}

/** A refusal with no form to show again (too many attempts, central unreachable): the reason, with its code. */
function refusal(lang: Lang, code: string, reason: string): string {
  return page(lang, TEXT[lang].failed, `<h1>${escape(TEXT[lang].failed)}</h1><p class="error" role="alert" data-code="${escape(code)}">${escape(reason)}</p>`);
}

/** The referral page. `rateLimits`: the node's limits (absent: the defaults). */
export const joinRoutes: FastifyPluginAsyncTypebox<{ engine: Engine; rateLimits?: RateLimitSettings }> = async (app, { engine, rateLimits = DEFAULT_RATE_LIMITS }) => {
  const schema = { tags: ['Referral page'], hide: true };
  // Joining registers an account (a password hash, and a 409 that tells an email exists), so it is
  // limited like POST /user/register, per client and per email, with its own counter.
  const joinLimit = rateLimited('join', rateRule(engine, rateLimits.register, validatedField('body', 'email_address')));
  app.get(
    '/join',
    { schema: { ...schema, querystring: Type.Object({ code: Type.Optional(Type.String({ maxLength: 64 })), ref: Type.Optional(Type.String({ maxLength: 64 })), vendor: Type.Optional(Type.String({ maxLength: 20 })), lang: Type.Optional(Type.String({ maxLength: 5 })) }) } },
    async (request, reply) => {
      const lang = languageOf(request.query.lang, request.headers['accept-language']);
      const code = request.query.code ?? request.query.ref ?? '';
      reply.type('text/html; charset=utf-8');
      try {
        return form(lang, code, await findReferrer(engine, code), null);
      } catch (error) {
        if (!isServiceError(error)) throw error;
        return reply.code(404).send(page(lang, TEXT[lang].invalid, `<h1>${escape(TEXT[lang].invalid)}</h1>`));
      }
    },
  );
  app.post(
    '/join',
    {
      schema: {
        ...schema,
        querystring: Type.Object({ lang: Type.Optional(Type.String({ maxLength: 5 })) }),
        body: Type.Object({
          code: Type.String({ maxLength: 64 }),
          first_name: Type.String({ maxLength: 100 }),
          last_name: Type.String({ maxLength: 100 }),
          email_address: Type.String({ maxLength: 254 }),
          password: Type.String({ maxLength: 128 }),
          terms: Type.Optional(Type.String({ maxLength: 5 })),
        }),
      },
      // On a paired store the form goes to central before this route runs (forward-to-central.ts,
      // an onRequest hook): central unreachable is a page too, with the same 503 and nothing done
      // here. The query is not validated yet at that point: languageOf takes only "en" or "es".
      errorHandler: (error, request, reply) => {
        if (!isServiceError(error) || error.code !== 'central_unreachable') throw error;
        request.log.error({ err: error }, 'request failed');
        const lang = languageOf(request.query.lang, request.headers['accept-language']);
        return reply.code(error.status).type('text/html; charset=utf-8').send(refusal(lang, error.code, TEXT[lang].centralUnreachable));
      },
    },
    async (request, reply) => {
      const lang = languageOf(request.query.lang, request.headers['accept-language']);
      const b = request.body;
      reply.type('text/html; charset=utf-8');
      // Counted before the code is looked up: guessing codes counts too. A page, like every refusal here.
      try {
        await joinLimit(request, reply);
      } catch (error) {
        if (!isServiceError(error)) throw error;
        const wait = String(reply.getHeader('retry-after') ?? '');
        return reply.code(error.status).send(refusal(lang, error.code, TEXT[lang].tooMany(wait)));
      }
      let referrer: Referrer;
      try {
        referrer = await findReferrer(engine, b.code);
      } catch (error) {
        if (!isServiceError(error)) throw error;
        return reply.code(404).send(page(lang, TEXT[lang].invalid, `<h1>${escape(TEXT[lang].invalid)}</h1>`));
      }
      try {
        if (b.terms !== 'true') throw new Error(TEXT[lang].terms);
        await joinByReferral(engine, { code: b.code, firstName: b.first_name, lastName: b.last_name, email: b.email_address, password: b.password, language: lang === 'es' ? 2 : 1 });
      } catch (error) {
        if (!isServiceError(error) && !(error instanceof Error && error.message === TEXT[lang].terms)) throw error;
        return reply.code(isServiceError(error) ? error.status : 400).send(form(lang, b.code, referrer, (error as Error).message, b));
      }
      return reply.code(201).send(page(lang, TEXT[lang].done(b.first_name), `<h1 data-testid="joined">${escape(TEXT[lang].done(b.first_name))}</h1><p>${escape(TEXT[lang].doneText(referrer.vendorName))}</p>`));
    },
  );
};
