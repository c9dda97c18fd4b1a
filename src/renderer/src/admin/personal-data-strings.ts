import { defineStrings } from '../i18n/define-strings';

// A member's copy of their data, downloaded from their page (its own table: the main one is long enough).

export const usePersonalDataStrings = defineStrings({
  en: {
    title: 'Their data',
    hint: 'Someone asks for a copy of the data the program holds about them (access, portability): a JSON file with their profile, consents, balances, cards (masked), ledger, orders, check-ins and messages. Recorded in the audit log.',
    download: 'Download their data (JSON)',
    downloaded: (name: string) => `Downloaded ${name}. Hand it to the person only.`,
  },
  es: {
    title: 'Sus datos',
    hint: 'Cuando una persona pide una copia de los datos que el programa guarda sobre ella (acceso, portabilidad): un archivo JSON con su perfil, consentimientos, saldos, tarjetas (enmascaradas), movimientos, pedidos, visitas y mensajes. Queda en el registro de auditoría.',
    download: 'Descargar sus datos (JSON)',
    downloaded: (name: string) => `Se descargó ${name}. Entréguelo solo a esa persona.`,
  },
});
