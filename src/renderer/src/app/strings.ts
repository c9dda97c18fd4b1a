import { defineStrings } from '../i18n/define-strings';

export const useShellStrings = defineStrings({
  en: {
    appName: 'Punchcard',
    settings: 'Settings',
    back: 'Back',
    language: 'Language',
    live: 'Live',
    connecting: 'Connecting…',
    offline: 'Offline',
    offlineBanner: 'Lost the connection to the store node. Retrying; the queue will catch up when it is back.',
    kioskOfflineBanner: 'One moment, please: this screen is reconnecting. If it takes long, please ask at the counter.',
    cashierRole: 'Cashier',
    kioskRole: 'Kiosk',
    integrationKey: 'This key belongs to an integration, not to a screen. Sign in with a cashier or kiosk key.',
    /** The name of every dialog's and alert's ✕ button. */
    close: 'Close',
  },
  es: {
    appName: 'Punchcard',
    settings: 'Ajustes',
    back: 'Volver',
    language: 'Idioma',
    live: 'En vivo',
    connecting: 'Conectando…',
    offline: 'Sin conexión',
    offlineBanner: 'Se perdió la conexión con el nodo de la tienda. Reintentando; la cola se pondrá al día al volver.',
    kioskOfflineBanner: 'Un momento, por favor: esta pantalla se está reconectando. Si tarda, pregunte en el mostrador.',
    cashierRole: 'Caja',
    kioskRole: 'Quiosco',
    integrationKey: 'Esta clave es de una integración, no de una pantalla. Inicie sesión con una clave de caja o de quiosco.',
    close: 'Cerrar',
  },
});
