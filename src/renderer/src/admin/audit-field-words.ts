// The names of the fields an audit entry lists, in the back office's language. The node records
// each object's fields under their code names (`role`, `time_zone`, `ledger_entry`); English shows
// them as recorded, Spanish in words. Only the names are translated: the values are the stored data
// (a name, an address, a reason typed by staff), shown as they are. A field not listed here is shown
// by its code name, as before.

const FIELDS_ES: Record<string, string> = {
  name: 'nombre', first_name: 'nombre', last_name: 'apellidos', email: 'correo', phone: 'teléfono', role: 'rol', status: 'estado',
  store: 'tienda', store_id: 'tienda', store_name: 'tienda', label: 'etiqueta', key: 'clave', key_hint: 'clave', error_mode: 'modo de error',
  address: 'dirección', address2: 'dirección (2)', city: 'ciudad', region: 'región', country: 'país', postal_code: 'código postal',
  latitude: 'latitud', longitude: 'longitud', hours: 'horario', time_zone: 'zona horaria', language: 'idioma',
  balance: 'saldo', balances: 'saldos', amount: 'importe', amount_paid: 'importe pagado', currency: 'moneda', currency_id: 'moneda',
  reason: 'motivo', note: 'nota', ledger_entry: 'movimiento', kind: 'tipo', method: 'método', result: 'resultado', returned: 'devuelto',
  blocked: 'bloqueado', blocked_reason: 'motivo del bloqueo', blocked_at: 'bloqueado el', member: 'miembro', invitation: 'invitación',
  points: 'puntos', per_amount: 'por cada', rounding: 'redondeo', max_award: 'máximo por compra', starts_at: 'desde', ends_at: 'hasta',
  cost: 'costo', summary: 'resumen', description: 'descripción', threshold: 'umbral', window_days: 'días de la ventana', code: 'código',
  url: 'URL', events: 'eventos', alert_email: 'correo de avisos', disabled_reason: 'motivo de la desactivación', title: 'título',
  content: 'contenido', version: 'versión', resolution: 'resolución', resolved: 'resuelta', message: 'mensaje', subject: 'asunto',
  paired: 'emparejado', last_seen_at: 'visto por última vez', expired: 'vencido', erased: 'borrado', customer: 'cliente', chain: 'cadena',
  revoked_at: 'revocada el', charge_id: 'cobro', egift_max_amount: 'máximo de un eGift', reload_max_amount: 'máximo de una recarga',
  format: 'formato', tier_currency: 'moneda de los niveles',
};

/** A field's name as the back office shows it in `language`: "ledger_entry" reads "movimiento" in Spanish. */
export function auditFieldWord(field: string, language: string): string {
  return language === 'es' ? (FIELDS_ES[field] ?? field) : field;
}
