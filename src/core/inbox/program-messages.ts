/**
 * The inbox messages the program sends by itself, in English and Spanish (the customer's language
 * with the vendor, else the vendor's). Parameters are filled in as plain text. The Spanish says
 * "usted" and never a gender, as every Spanish text a customer reads (docs/decisions.md).
 */
export type ProgramMessageKind = 'welcome' | 'tier' | 'reward' | 'egift';

const TEXTS: Record<'en' | 'es', Record<ProgramMessageKind, { title: string; body: string }>> = {
  en: {
    welcome: { title: 'Welcome to {vendor}!', body: 'Thanks for joining. Earn points with every purchase and watch this inbox for your rewards.' },
    tier: { title: 'You reached {tier}', body: 'Enjoy the benefits of {tier} at {vendor}.' },
    reward: { title: 'A reward is ready: {reward}', body: 'You have enough {currency} for {reward}. Ask for it on your next visit.' },
    egift: { title: 'You received an eGift', body: '{buyer} sent you a {amount} eGift. Check your email for the code to claim it.' },
  },
  es: {
    welcome: { title: '¡Le damos la bienvenida a {vendor}!', body: 'Gracias por unirse. Gane puntos con cada compra y consulte esta bandeja para ver sus recompensas.' },
    tier: { title: 'Alcanzó {tier}', body: 'Disfrute de los beneficios de {tier} en {vendor}.' },
    reward: { title: 'Tiene una recompensa lista: {reward}', body: 'Tiene suficientes {currency} para {reward}. Pídala en su próxima visita.' },
    egift: { title: 'Recibió un eGift', body: '{buyer} le envió un eGift de {amount}. Consulte su correo para ver el código y canjearlo.' },
  },
};

export function programMessage(kind: ProgramMessageKind, locale: string, params: Record<string, string>): { title: string; body: string } {
  const texts = TEXTS[locale.startsWith('es') ? 'es' : 'en'][kind];
  const fill = (text: string) => text.replace(/\{(\w+)\}/g, (_, name: string) => params[name] ?? '');
  return { title: fill(texts.title), body: fill(texts.body) };
}
