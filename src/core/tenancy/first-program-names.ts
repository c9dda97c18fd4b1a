import type { LanguageCode } from '../../shared/languages';

/** The names `init` gives what it makes, in the program's language: the merchant renames them later. */
export interface FirstProgramNames {
  points: string;
  quickPay: (currency: string) => string;
  earningRule: string;
  entryTier: { name: string; summary: string; description: string };
  counter: string;
  kiosk: string;
}

const NAMES: Record<LanguageCode, FirstProgramNames> = {
  en: {
    points: 'Points',
    quickPay: (currency) => `Quick Pay ${currency}`,
    earningRule: '1 point per unit spent',
    entryTier: { name: 'Member', summary: 'Welcome to the program.', description: 'Every member earns points on every visit.' },
    counter: 'Counter 1',
    kiosk: 'Kiosk',
  },
  es: {
    points: 'Puntos',
    quickPay: (currency) => `Pago rápido ${currency}`,
    earningRule: '1 punto por unidad gastada',
    entryTier: { name: 'Miembro', summary: 'Le damos la bienvenida al programa.', description: 'Cada miembro gana puntos en cada visita.' },
    counter: 'Caja 1',
    kiosk: 'Quiosco',
  },
};

export function firstProgramNames(language: LanguageCode): FirstProgramNames {
  return NAMES[language];
}
