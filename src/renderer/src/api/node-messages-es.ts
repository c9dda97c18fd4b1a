import { ERROR_CODES, type ErrorCode } from '../../../shared/errors';

// The node answers in English (its messages are the contract's). A screen read in Spanish shows
// the Spanish of the refusals a counter and a kiosk meet, when the node sent the code's own
// message; a message the node wrote for the case (an offline cap with its amount, a field's rule)
// is shown as it came, since a fixed translation would lose what it says.
const SPANISH: Partial<Record<ErrorCode, string>> = {
  invalid_email: 'La dirección de correo no es válida.',
  invalid_phone: 'El número de teléfono no es válido.',
  unreadable_scan: 'No se pudo leer el escaneo. Vuelva a escanear, por favor.',
  id_document_scanned: 'Aquí no se leen licencias de conducir ni documentos de identidad. Registre su visita con la tarjeta de fidelidad, el código de la app, un teléfono o un correo.',
  payment_card_scanned: 'Esta es una tarjeta de pago, no de fidelidad: no se leyó ni se guardó. Registre su visita con la tarjeta de fidelidad, el código de la app, un teléfono o un correo.',
  invalid_api_key: 'La clave de API no es válida.',
  invalid_credentials: 'El correo o la contraseña no son correctos.',
  forbidden: 'Estas credenciales no permiten esta acción.',
  card_link_at_counter: 'Esta tarjeta solo se puede vincular a una cuenta existente en caja: pida ayuda al personal, por favor.',
  customer_blocked: 'Este cliente está bloqueado en este programa: no puede registrar su visita ni hacer pedidos. Un gerente puede desbloquearlo en la administración.',
  customer_not_found: 'Ningún cliente coincide con esa tarjeta, teléfono, correo o código. Revíselo o registre al cliente.',
  card_not_linked: 'Esta tarjeta aún no está vinculada a ningún cliente.',
  session_not_found: 'Ninguna visita abierta coincide en esta tienda.',
  identification_conflict: 'La tarjeta y la visita abierta son de clientes distintos: envíe solo la del cliente que compra.',
  account_inactive: 'Esta cuenta está desactivada. El cliente puede iniciar sesión en la app para reactivarla.',
  insufficient_balance: 'El saldo de pago rápido no alcanza para este pago.',
  stored_value_remaining: 'Aún tiene dinero aquí: gástelo o pida a la tienda que se lo devuelva antes de eliminar su cuenta, o confirme que renuncia a él.',
  quick_pay_not_offered: 'Este programa no ofrece pago rápido.',
  offline_limit: 'La tienda está sin conexión y esto supera el límite sin conexión.',
  balance_limit: 'Esto llevaría un saldo más allá de la cantidad máxima que puede guardar.',
  rate_limited: 'Demasiadas solicitudes. Espere un momento y vuelva a intentarlo.',
  first_sync_in_progress: 'Esta tienda aún está recibiendo los clientes de la cadena desde la central. Inténtelo de nuevo en un momento; los clientes ya recibidos pueden registrar su visita.',
  central_unreachable: 'Ahora no se puede contactar con la central, así que esto no se puede hacer en la tienda. Las ventas y las visitas siguen funcionando; inténtelo más tarde.',
  database_unavailable: 'La base de datos no está disponible en este momento. Vuelva a intentarlo en unos segundos, por favor.',
  storage_unavailable: 'Este nodo no puede usar sus datos en este momento. Inténtelo más tarde; si sigue así, avise a quien administra el nodo.',
  store_unpaired_at_central:
    'La central desvinculó este nodo de la tienda: lo que vendiera ya no podría llegar a la cadena, así que no registra visitas ni ventas. Vuelva a vincularlo (Ajustes, o punchcard store --pair); los cambios sin enviar quedan en su base de datos apartada.',
};

/** "Wait N seconds" in Spanish: the node's 429 says how long, in its Retry-After header (the sentence only repeats it). */
function rateLimitedFor(seconds: number): string {
  return `Demasiadas solicitudes. Espere ${seconds} ${seconds === 1 ? 'segundo' : 'segundos'} y vuelva a intentarlo.`;
}

/**
 * The Spanish of the node's message for `code`, when the node sent that code's own message and one
 * is known. A refusal for too many requests (`rate_limited`) is said in Spanish whatever its
 * sentence: the wait the node wrote into it is the reply's Retry-After (`retryAfterSeconds`), said
 * here with it; without one (a header the browser does not let a page of another origin read) it
 * is the code's own Spanish, "wait a moment".
 */
export function spanishOf(code: string | null, message: string, retryAfterSeconds: number | null = null): string | null {
  if (code === null || !(code in ERROR_CODES)) return null;
  const known = code as ErrorCode;
  if (known === 'rate_limited') return retryAfterSeconds !== null && retryAfterSeconds > 0 ? rateLimitedFor(retryAfterSeconds) : (SPANISH.rate_limited ?? null);
  return ERROR_CODES[known].message === message ? (SPANISH[known] ?? null) : null;
}

/** A Retry-After header's wait in whole seconds (the node sends seconds; an HTTP date is counted from now); null when absent or unreadable. */
export function retryAfterSeconds(header: string | null, now: number = Date.now()): number | null {
  const value = header?.trim() ?? '';
  if (/^\d+$/.test(value)) return Number(value);
  const at = value === '' ? Number.NaN : Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}
