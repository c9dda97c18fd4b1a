import { defineStrings } from '../i18n/define-strings';

export const useWedgeStrings = defineStrings({
  en: {
    scanFailed: 'Scan not accepted',
    unreachable: 'Could not reach the store node. Scan again when it is back.',
  },
  es: {
    scanFailed: 'Escaneo no aceptado',
    unreachable: 'No se pudo contactar con el nodo de la tienda. Vuelva a escanear cuando vuelva.',
  },
});
