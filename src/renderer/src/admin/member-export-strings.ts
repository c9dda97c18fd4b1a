import { defineStrings } from '../i18n/define-strings';

// The program's members as one CSV file, downloaded from the Customers screen (owners only).

export const useMemberExportStrings = defineStrings({
  en: {
    title: 'All members',
    hint: 'Every member of the program as a CSV file: contacts, email and SMS consent, language, member since, tier, blocked, and each balance (points per currency, stored value). It opens in a spreadsheet and imports into another Punchcard program. Recorded in the audit log.',
    download: 'Download members (CSV)',
    downloaded: (name: string) => `Downloaded ${name}. It holds personal data: keep it safe and delete it when done.`,
  },
  es: {
    title: 'Todos los socios',
    hint: 'Todos los socios del programa en un archivo CSV: contactos, consentimiento de correo y SMS, idioma, fecha de alta, nivel, bloqueo y cada saldo (puntos por moneda, saldo monetario). Se abre en una hoja de cálculo y se importa en otro programa Punchcard. Queda en el registro de auditoría.',
    download: 'Descargar socios (CSV)',
    downloaded: (name: string) => `Se descargó ${name}. Contiene datos personales: guárdelo con cuidado y bórrelo cuando termine.`,
  },
});
