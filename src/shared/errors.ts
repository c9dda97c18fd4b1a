// Every failure the service can answer with, by stable machine code. The code is what clients
// branch on; the message is safe to show a person; the status is the HTTP status of the reply.
// Add new codes here only: the error handler, the docs and the renderer all read this table.

export const ERROR_CODES = {
  // 400: the request itself is wrong
  invalid_request: { status: 400, message: 'The request is not valid.' },
  invalid_json: { status: 400, message: 'The request body is not valid JSON.' },
  validation_failed: { status: 400, message: 'A field of the request is missing or not valid.' },
  invalid_query: { status: 400, message: 'The query filter is not valid.' },
  invalid_sort: { status: 400, message: 'The list cannot be sorted that way.' },
  invalid_currency_code: { status: 400, message: 'The currency code is not a valid ISO 4217 code.' },
  invalid_card_number: { status: 400, message: 'A card number may contain only letters and digits.' },
  card_field_not_updatable: { status: 400, message: 'Only the data and status of a card can be changed.' },
  invalid_date_range: { status: 400, message: 'ends_at must be later than starts_at.' },
  invalid_period: { status: 400, message: 'The period is not valid: from and to are calendar days (2026-11-01), from no later than to, at most 366 days.' },
  unsupported_grant_type: { status: 400, message: 'Only the client_credentials grant is supported.' },
  body_too_large: { status: 413, message: 'The request body is too large.' },
  import_file_too_large: { status: 413, message: 'The members file is over 8 MB: split it into several files and import them one after the other.' },
  unsupported_media_type: { status: 415, message: 'The request body must be JSON (application/json) or form fields (application/x-www-form-urlencoded).' },
  headers_too_large: { status: 431, message: 'The URL or the headers of the request are too large (16 KB at most).' },
  request_timeout: { status: 408, message: 'The request took too long to arrive.' },
  host_required: { status: 400, message: 'An HTTP/1.1 request must name the host it is for in a Host header.' },
  expectation_failed: { status: 417, message: 'This node meets no Expect header but Expect: 100-continue.' },
  invalid_email: { status: 400, message: 'The email address is not valid.' },
  invalid_phone: { status: 400, message: 'The phone number is not valid.' },
  weak_password: { status: 400, message: 'The password must be 8 to 128 characters long.' },
  invalid_postal_code: { status: 400, message: 'The postal code is not valid for the country.' },
  invalid_national_id: { status: 400, message: 'The national id number (cedula) is not valid.' },
  invalid_code: { status: 400, message: 'The code is not valid. Check it, or ask for a new one.' },
  unreadable_scan: { status: 400, message: 'The scan could not be read. Please scan again.' },
  identification_conflict: { status: 400, message: 'card_number and pos_session_hash name different customers: send the one of the customer buying.' },
  code_expired: { status: 400, message: 'The code has expired. Please ask for a new one.' },
  invalid_payment_card: { status: 400, message: 'The card number is not valid. Check it and try again.' },
  invalid_card_expiry: { status: 400, message: 'The card expiry date is not valid or has passed.' },
  invalid_card_cvv: { status: 400, message: 'The card security code (CVV) is not valid.' },
  invalid_egift_code: { status: 400, message: 'This eGift code is not valid. Check it against the email and try again.' },
  webhook_url_not_allowed: { status: 400, message: 'This URL cannot receive webhooks: use an https:// URL on a public address.' },

  // 401: who are you?
  missing_credentials: { status: 401, message: 'This call needs credentials.' },
  invalid_token: { status: 401, message: 'The access token is not valid.' },
  token_expired: { status: 401, message: 'The access token has expired.' },
  invalid_api_key: { status: 401, message: 'The API key is not valid.' },
  invalid_client: { status: 401, message: 'The client id or secret is not valid.' },
  invalid_credentials: { status: 401, message: 'The email address or password is not correct.' },
  invalid_session: { status: 401, message: 'Your session is not valid. Please log in again.' },
  session_expired: { status: 401, message: 'Your session has expired. Please log in again.' },
  session_ended: { status: 401, message: 'This session has ended: logged out, the password changed, or the account closed. Please log in again.' },
  staff_disabled: { status: 401, message: 'This staff account is disabled. Ask an owner of the program.' },

  // 403: known, but not allowed
  forbidden: { status: 403, message: 'These credentials may not make this call.' },
  wrong_current_password: { status: 403, message: 'The current password is not correct.' },
  invalid_card_pin: { status: 403, message: 'The card number and pin do not match.' },
  card_link_at_counter: { status: 403, message: 'This card can be linked to an existing account only at the counter: please ask a member of staff.' },
  customer_blocked: { status: 403, message: 'This customer is blocked in this program: they cannot check in or order. A manager can unblock them in the back office.' },
  card_linked_to_account: { status: 403, message: 'This card is linked to an account: its owner sees its balance in the app.' },

  // 404 (and 405: a path that exists, asked with a method it does not take)
  route_not_found: { status: 404, message: 'There is no such endpoint.' },
  method_not_allowed: { status: 405, message: 'This endpoint does not take that method: the Allow header lists the ones it does.' },
  currency_not_found: { status: 404, message: 'No currency with that id exists.' },
  card_not_found: { status: 404, message: 'No card with that id exists.' },
  vendor_not_found: { status: 404, message: 'No such program (vendor) exists.' },
  user_not_found: { status: 404, message: 'No such customer exists.' },
  user_card_not_found: { status: 404, message: 'No such card is linked to your account.' },
  scanner_not_found: { status: 404, message: 'This node reads no such scanner for your store.' },
  content_not_found: { status: 404, message: 'No such content page exists.' },
  country_not_found: { status: 404, message: 'No country with that id exists.' },
  customer_not_found: { status: 404, message: 'No customer matches that card, phone, email or code. Check it, or register the customer.' },
  card_not_linked: { status: 404, message: 'This card is not linked to a customer yet.' },
  session_not_found: { status: 404, message: 'No open session matches that hash at this store.' },
  order_not_found: { status: 404, message: 'No order with that receipt number exists at this store.' },
  receipt_number_reused: { status: 409, message: 'This receipt number was already recorded at this store for a different sale.' },
  store_not_found: { status: 404, message: 'No such store exists for this program.' },
  earning_rule_not_found: { status: 404, message: 'No earning rule with that id exists.' },
  reward_not_found: { status: 404, message: 'No reward with that id exists.' },
  tier_not_found: { status: 404, message: 'No tier with that id exists.' },
  billing_profile_not_found: { status: 404, message: 'No such billing profile (saved card) exists on your account.' },
  referral_not_found: { status: 404, message: 'This invitation link is not valid.' },
  payment_exception_not_found: { status: 404, message: 'No payment exception with that id exists.' },
  payback_not_found: { status: 404, message: 'No pay-back with that id exists in this program.' },
  reload_not_found: { status: 404, message: 'No reload with that transaction id exists on your account.' },
  transaction_not_found: { status: 404, message: 'No such transaction exists in your history.' },
  message_not_found: { status: 404, message: 'No such message exists in your inbox.' },
  promotion_not_found: { status: 404, message: 'No promotion with that id exists.' },
  promotion_code_unknown: { status: 404, message: 'That promotion code is not valid.' },
  webhook_not_found: { status: 404, message: 'No webhook endpoint with that id exists.' },
  webhook_event_not_found: { status: 404, message: 'No webhook event with that id exists.' },
  staff_not_found: { status: 404, message: 'No staff member with that id exists in this program.' },
  api_key_not_found: { status: 404, message: 'No API key with that id exists in this program.' },
  sync_exception_not_found: { status: 404, message: 'No open sync exception with that id exists in this program.' },
  import_not_found: { status: 404, message: 'No such import of members in this program: it keeps the reports of its last five imports. Upload the file again.' },

  // 409: conflicts with what is stored
  currency_name_taken: { status: 409, message: 'A currency with that name already exists.' },
  card_number_taken: { status: 409, message: 'A card with that number already exists.' },
  currency_in_use: {
    status: 409,
    message: 'The currency already holds balances, so its code can no longer change.',
  },
  invalid_status_transition: { status: 409, message: 'The object cannot move to that status.' },
  email_taken: { status: 409, message: 'An account with that email address already exists. Please log in.' },
  phone_taken: { status: 409, message: 'Another account already uses that phone number.' },
  passport_taken: { status: 409, message: 'Another account already uses that passport number.' },
  cedula_taken: { status: 409, message: 'Another account already uses that national id number (cedula).' },
  card_already_linked: { status: 409, message: 'This card is already linked to another account.' },
  tier_threshold_taken: { status: 409, message: 'Another tier of the program already has that threshold.' },
  tier_name_taken: { status: 409, message: 'Another tier of the program already has that name.' },
  earning_rule_name_taken: { status: 409, message: 'Another earning rule of the program already has that name: two alike would both award points on every sale. Edit or pause that one instead.' },
  reward_name_taken: { status: 409, message: 'Another reward of the program already has that name.' },
  last_tier: { status: 409, message: 'A program keeps at least one tier: add another tier before deleting this one.' },
  idempotency_key_reused: { status: 409, message: 'This idempotency key was already used for a different request.' },
  card_value_claimed: { status: 409, message: 'The value of this card was already moved to another account: it can only be linked to that account.' },
  egift_already_claimed: { status: 409, message: 'This eGift has already been claimed by another account.' },
  promotion_code_taken: { status: 409, message: 'Another promotion of the program already uses that code.' },
  already_tipped: { status: 409, message: 'This transaction already has a tip.' },
  promotion_already_awarded: { status: 409, message: 'You have already used this promotion code.' },
  staff_email_taken: { status: 409, message: 'A staff account with that email address already exists.' },
  password_already_set: { status: 409, message: 'This account has a password already: change it with “Forgot your password?” on the sign-in screen.' },
  program_managed_by_central: { status: 409, message: 'This store is paired with a central node: change the program in the back office of central.' },
  webhook_endpoint_limit: { status: 409, message: 'The program has as many webhook endpoints as it may have (20): delete one it no longer uses first.' },
  webhooks_managed_by_central: { status: 409, message: 'This store is paired with a central node: central delivers the program’s webhooks, so manage them in the back office of central.' },
  stores_managed_by_central: { status: 409, message: 'This store is paired with a central node: stores and their API keys are central’s, so change them in the back office of central.' },
  blocking_managed_by_central: { status: 409, message: 'This store is paired with a central node: block or unblock customers in the back office of central.' },
  sync_log_behind: { status: 409, message: 'Central’s change log ends before what this store has read: central was restored from an older backup. Pair this store again.' },
  removal_managed_by_central: { status: 409, message: 'This store is paired with a central node: remove a member in the back office of central.' },
  balance_remaining: { status: 409, message: 'The customer still holds a balance here: confirm that they give it up to remove them.' },
  payback_managed_by_central: { status: 409, message: 'This store is paired with a central node: pay back stored value in the back office of central.' },
  stored_value_remaining: { status: 409, message: 'You still hold money here: spend it or ask the store to refund it before deleting your account, or confirm that you give it up.' },
  customer_email_managed_by_central: { status: 409, message: 'This store is paired with a central node: add a customer’s email in the back office of central.' },
  personal_data_managed_by_central: { status: 409, message: 'This store is paired with a central node: only central holds all of a person’s data (every store’s sales, saved cards, payments, messages), so download their data in the back office of central.' },
  member_list_managed_by_central: { status: 409, message: 'This store is paired with a central node: the program’s member list is central’s, so download it in the back office of central.' },
  import_in_progress: { status: 409, message: 'An import of members is already running for this program: wait for it to finish, then upload the next file.' },
  import_not_confirmable: { status: 409, message: 'Only a finished preview can be imported, and only once: upload the file again to see a new preview.' },
  import_file_expired: { status: 409, message: 'This import no longer keeps its file (a file is kept a day after its import ends, and goes sooner if a person in it is erased): upload the file again.' },
  customers_managed_by_central: { status: 409, message: 'This store is paired with a central node: customers are central’s, so import them on central’s data folder (punchcard import customers --data CENTRAL_DIR).' },
  offline_caps_at_central: { status: 409, message: 'Offline caps apply only to stores paired with a central node: set them in the back office of central.' },
  last_owner: { status: 409, message: 'A program keeps at least one active owner: make someone else owner first.' },
  payment_refund_pending: { status: 409, message: 'This payment is being refunded to the card it was paid with: nothing comes of it unless the refund fails. Please try again later.' },
  payment_refunded: { status: 409, message: 'This payment was refunded to the card it was paid with: no eGift or balance comes of it.' },
  payment_credited: { status: 409, message: 'This payment was added to your quick-pay balance instead: no eGift comes of it.' },

  // 422, 429, 5xx
  business_rule: { status: 422, message: 'The request breaks a rule of the program.' },
  verification_method_disabled: { status: 422, message: 'This program does not verify accounts that way.' },
  no_phone_number: { status: 422, message: 'Add a phone number to your account first.' },
  payment_card_scanned: { status: 422, message: 'This is a payment card, not a loyalty card: it was not read or kept. Check in with the loyalty card, the app code, a phone number or an email.' },
  id_document_scanned: { status: 422, message: "Driver's licences and ID cards are not read here. Check in with the loyalty card, the app code, a phone number or an email." },
  account_inactive: { status: 422, message: 'This account is deactivated. The customer can log in to the app to reactivate it.' },
  insufficient_balance: { status: 422, message: 'The quick-pay balance is too low for this payment.' },
  insufficient_points: { status: 422, message: 'The customer does not have enough points for this reward.' },
  reward_not_available: { status: 422, message: 'This reward is not available.' },
  currency_not_active: { status: 422, message: 'This currency is paused or archived and cannot be used now.' },
  card_not_active: { status: 422, message: 'This card is not active.' },
  quick_pay_not_offered: { status: 422, message: 'This program does not offer quick pay.' },
  payback_exceeds_balance: { status: 422, message: 'That is more than the customer’s quick-pay balance: pay back at most what they hold.' },
  payback_exceeds_card_refunds: { status: 422, message: 'That is more than can go back to the customer’s cards (what their card reloads paid, less what was refunded): pay the rest in cash.' },
  payback_refused: { status: 422, message: 'The payment gateway refused to refund the card: nothing was paid back and the balance is as it was. Pay it back in cash instead.' },
  unknown_currency: { status: 422, message: 'No currency of this program has that id.' },
  not_rateable: { status: 422, message: 'Only purchases at a store can be rated or tipped.' },
  rating_window_closed: { status: 422, message: 'The time to rate this purchase has passed.' },
  tip_window_closed: { status: 422, message: 'The time to tip for this purchase has passed.' },
  promotion_not_active: { status: 422, message: 'This promotion is not running now.' },
  promotion_exhausted: { status: 422, message: 'This promotion has been fully claimed.' },
  egift_other_vendor: { status: 422, message: "This eGift is for another program: claim it in that program's app." },
  currency_not_loyalty: {
    status: 422,
    message: 'Rules and rewards count in a loyalty currency (one without an ISO code), not in a cash currency.',
  },
  card_declined: { status: 422, message: 'The card was declined. Please use another card.' },
  insufficient_funds: { status: 422, message: 'The card was declined for insufficient funds. Please use another card.' },
  card_lost: { status: 422, message: 'The card was declined. Please use another card.' },
  card_stolen: { status: 422, message: 'The card was declined. Please use another card.' },
  card_expired: { status: 422, message: 'The card has expired. Please use another card.' },
  incorrect_cvc: { status: 422, message: 'The card security code (CVV) is incorrect.' },
  card_processing_error: { status: 422, message: 'The card could not be processed. Please try again in a moment.' },
  rate_limited: { status: 429, message: 'Too many requests. Please wait a moment and try again.' },
  account_locked: { status: 429, message: 'Too many failed attempts. Your account is locked for a while; try again later or reset your password.' },
  // Chain sync (docs/sync.md)
  node_credential_required: { status: 401, message: 'This call needs a store node credential (Authorization: Bearer pcn_…).' },
  node_revoked: { status: 401, message: 'This store node was unpaired at central. Pair it again with a new pairing code.' },
  pairing_code_invalid: { status: 400, message: 'The pairing code is wrong, used or expired. Ask central for a new one.' },
  pairing_needs_empty_store: {
    status: 409,
    message: "This store node already has data of its own. To take the chain's, ask to set that data aside (it is kept): the box in Settings, or --replace-local-data.",
  },
  pairing_other_programs: {
    status: 409,
    message: "This node also holds other programs, whose data pairing would set aside: pair it from the command line (punchcard store --pair … --replace-local-data), as whoever runs the node.",
  },
  sync_node_not_found: { status: 404, message: 'No such paired store node.' },
  store_already_paired: { status: 409, message: 'This store node is already paired with a central node. Unpair it first.' },
  store_newer_than_central: {
    status: 409,
    message: 'This store runs a newer Punchcard than central and sent what central cannot keep. Upgrade central to the store\'s version or later; the store keeps its sales until then.',
  },
  store_not_paired: { status: 409, message: 'This store node is not paired with a central node.' },
  store_unpaired_at_central: {
    status: 409,
    message:
      'Central has unpaired this store node: what it sold could no longer reach the chain, so it takes no check-ins or sales. Pair it again (Settings, or punchcard store --pair); changes it had not sent stay in its set-aside database.',
  },
  node_running: { status: 409, message: 'A Punchcard node is running on this data folder: stop it first, or pair and unpair from its Settings screen.' },
  pairing_unavailable: { status: 409, message: 'This node cannot be paired from its screens: pair it with `punchcard store --central URL --pair CODE`.' },
  unsent_sales: { status: 409, message: 'Sales made here have not reached central yet. Unpairing now would leave them out of the chain.' },
  offline_limit: { status: 422, message: 'The store is offline and this exceeds the offline limit.' },
  balance_limit: { status: 422, message: 'This would take a balance beyond the largest amount it can hold.' },
  first_sync_in_progress: {
    status: 503,
    message: "This store is still receiving the chain's customers from the central office. Try again in a moment; customers already received can check in.",
  },
  central_unreachable: {
    status: 503,
    message: 'The central office cannot be reached right now, so this cannot be done at the store. Sales and check-ins still work; try this again later.',
  },
  internal_error: { status: 500, message: 'Something went wrong on our side.' },
  service_unavailable: { status: 503, message: 'The service is not available right now.' },
  database_unavailable: { status: 503, message: 'The database is not available right now. Please try again in a few seconds.' },
  storage_unavailable: { status: 503, message: 'This node cannot use its data right now. Please try again later; if it goes on, tell whoever runs the node.' },
  payment_gateway_unavailable: { status: 503, message: 'The payment service is not available right now. Please try again in a moment.' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** A failure the engine reports on purpose: it carries a stable code, a status and a user-safe message. */
export class ServiceError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly field: string | undefined;
  /** Seconds until the refusal lifts (a lockout): sent as Retry-After, as a rate limit's 429 is. */
  retryAfterSeconds: number | undefined;

  constructor(code: ErrorCode, message?: string, field?: string) {
    super(message ?? ERROR_CODES[code].message);
    this.name = 'ServiceError';
    this.code = code;
    this.status = ERROR_CODES[code].status;
    this.field = field;
  }
}

export function isServiceError(error: unknown): error is ServiceError {
  return error instanceof ServiceError;
}
