/**
 * The inbox messages the program sends by itself, in English and Spanish (the customer's language
 * with the vendor, else the vendor's). Parameters are filled in as plain text.
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
    welcome: { title: '¡Bienvenido a {vendor}!', body: 'Gracias por unirte. Gana puntos con cada compra y revisa esta bandeja para ver tus recompensas.' },
    tier: { title: 'Alcanzaste {tier}', body: 'Disfruta los beneficios de {tier} en {vendor}.' },
    reward: { title: 'Tienes una recompensa lista: {reward}', body: 'Tienes suficientes {currency} para {reward}. Pídela en tu próxima visita.' },
    egift: { title: 'Recibiste un eGift', body: '{buyer} te envió un eGift de {amount}. Revisa tu correo para ver el código y reclamarlo.' },
  },
};

export function programMessage(kind: ProgramMessageKind, locale: string, params: Record<string, string>): { title: string; body: string } {
  const texts = TEXTS[locale.startsWith('es') ? 'es' : 'en'][kind];
  const fill = (text: string) => text.replace(/\{(\w+)\}/g, (_, name: string) => params[name] ?? '');
  return { title: fill(texts.title), body: fill(texts.body) };
}
