/** What an API key may do at its store: cashiers run the counter, kiosks only check customers in. */
export const API_KEY_ROLES = ['cashier', 'kiosk', 'integration'] as const;
export type ApiKeyRole = (typeof API_KEY_ROLES)[number];

/** How business errors reach the POS: as HTTP errors, or as 200 {"success": false} for old systems. */
export const ERROR_MODES = ['http', 'success_false'] as const;
export type ErrorMode = (typeof ERROR_MODES)[number];
