import type { ContentSlug } from './content-page';

// Built-in pages served (version 0) until a vendor writes its own with PUT /vendor/content/{slug}.
// Plain, general texts naming the vendor; the merchant is expected to replace them.

export const DEFAULT_LANGUAGES = ['en', 'es'] as const;
export type DefaultLanguage = (typeof DEFAULT_LANGUAGES)[number];

/**
 * The vendor's name as HTML text: it only ever stands between tags (never in an attribute), where
 * `&`, `<` and `>` are all that need escaping. Quotes stay as typed: the back office shows this
 * HTML as source for the merchant to edit, where `Lupe&#39;s` read as a fault.
 */
export function escapeHtmlText(text: string): string {
  return text.replace(/[&<>]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c] ?? c);
}

type Page = { title: string; content: (vendor: string) => string };

const PAGES: Record<DefaultLanguage, Record<ContentSlug, Page>> = {
  en: {
    'terms-of-service': {
      title: 'Terms of service',
      content: (v) =>
        `<h1>Terms of service</h1>` +
        `<p>These terms govern your membership in the ${v} loyalty program and your use of its app and cards.</p>` +
        `<ul><li>Points and stored value have no cash value and cannot be transferred, except as ${v} allows.</li>` +
        `<li>Points may expire; the app shows upcoming expirations.</li>` +
        `<li>${v} may change the program, its rewards and these terms; the current version is always shown here.</li>` +
        `<li>Keep your password and card pins private. Tell ${v} at once if a card is lost or stolen.</li></ul>` +
        `<p>Questions? Ask at any ${v} store.</p>`,
    },
    'privacy-policy': {
      title: 'Privacy policy',
      content: (v) =>
        `<h1>Privacy policy</h1>` +
        `<p>${v} keeps the information you give when you join (name, email, phone and the like) and a record of your purchases, ` +
        `points and stored value, to run the loyalty program.</p>` +
        `<ul><li>Your information is not sold.</li>` +
        `<li>${v} sends you messages only as you agreed when you joined, and you can change that in the app.</li>` +
        `<li>You can see and correct your profile in the app, and delete your account at any time.</li></ul>` +
        `<p>For any question about your data, contact ${v}.</p>`,
    },
    faq: {
      title: 'Frequently asked questions',
      content: (v) =>
        `<h1>Frequently asked questions</h1>` +
        `<h2>How do I earn points?</h2><p>Show your app barcode or your ${v} card when you pay.</p>` +
        `<h2>How do I use my rewards?</h2><p>Rewards ready to use appear in the app; ask the cashier to apply them.</p>` +
        `<h2>I have a ${v} card. Can I add it to the app?</h2><p>Yes: add it with its number and pin in the app's card section.</p>` +
        `<h2>I forgot my password.</h2><p>Use "Forgot password" on the login screen to receive a reset link by email.</p>`,
    },
  },
  es: {
    'terms-of-service': {
      title: 'Términos del servicio',
      content: (v) =>
        `<h1>Términos del servicio</h1>` +
        `<p>Estos términos rigen su membresía en el programa de lealtad de ${v} y el uso de su aplicación y sus tarjetas.</p>` +
        `<ul><li>Los puntos y el saldo no tienen valor en efectivo y no se pueden transferir, salvo cuando ${v} lo permita.</li>` +
        `<li>Los puntos pueden vencer; la aplicación muestra los próximos vencimientos.</li>` +
        `<li>${v} puede cambiar el programa, sus recompensas y estos términos; aquí se muestra siempre la versión vigente.</li>` +
        `<li>No comparta su contraseña ni el PIN de sus tarjetas. Avise de inmediato a ${v} si pierde una tarjeta o se la roban.</li></ul>` +
        `<p>¿Preguntas? Consulte en cualquier local de ${v}.</p>`,
    },
    'privacy-policy': {
      title: 'Política de privacidad',
      content: (v) =>
        `<h1>Política de privacidad</h1>` +
        `<p>${v} guarda los datos que usted da al inscribirse (nombre, correo, teléfono y similares) y un registro de sus compras, ` +
        `puntos y saldo, para operar el programa de lealtad.</p>` +
        `<ul><li>Sus datos no se venden.</li>` +
        `<li>${v} le envía mensajes solo según lo que aceptó al inscribirse, y puede cambiarlo en la aplicación.</li>` +
        `<li>Puede ver y corregir su perfil en la aplicación, y eliminar su cuenta cuando quiera.</li></ul>` +
        `<p>Para cualquier consulta sobre sus datos, contacte con ${v}.</p>`,
    },
    faq: {
      title: 'Preguntas frecuentes',
      content: (v) =>
        `<h1>Preguntas frecuentes</h1>` +
        `<h2>¿Cómo gano puntos?</h2><p>Muestre el código de barras de la aplicación o su tarjeta ${v} al pagar.</p>` +
        `<h2>¿Cómo uso mis recompensas?</h2><p>Las recompensas listas aparecen en la aplicación; pida en caja que se las apliquen.</p>` +
        `<h2>Tengo una tarjeta ${v}. ¿Puedo agregarla a la aplicación?</h2><p>Sí: agréguela con su número y PIN en la sección de tarjetas.</p>` +
        `<h2>Olvidé mi contraseña.</h2><p>Use "Olvidé mi contraseña" en la pantalla de ingreso para recibir un enlace por correo.</p>`,
    },
  },
};

export function defaultPage(slug: ContentSlug, language: DefaultLanguage, vendorName: string): { title: string; content: string } {
  const page = PAGES[language][slug];
  return { title: page.title, content: page.content(escapeHtmlText(vendorName)) };
}
