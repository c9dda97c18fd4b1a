// The words of the API documentation (/docs, /openapi.json): every operation's section, summary
// and description, in one table so they read as one document. openapi.ts applies them to the
// generated spec; test/api/openapi-docs.test.ts fails when an operation has no entry here.
//
// Sections follow service-interface.md: its six sections first, in its order, then the resources
// its index lists as "not shown" that Punchcard implements, then the node's own.

export const SECTIONS = [
  { name: 'Currencies', description: 'Resource style, bearer token. The currencies of a program: cash-like (ISO 4217 code) or loyalty (no code).' },
  { name: 'Cards', description: 'Resource style, bearer token. Card numbers a program issues, which customers link to their accounts.' },
  { name: 'OnScreen', description: 'In-store check-in (legacy style, api_key of a store): check a customer in, read them, close the session, the queue, in-store register, and the screens\' own calls.' },
  { name: 'Countries and regions', description: 'Helpers for address forms: the countries a program serves and their regions.' },
  { name: 'Users', description: 'End-customer accounts (legacy style, session_key): register, log in and out, profile, verification, resets, deletion, barcode tokens.' },
  { name: 'Billing profiles, reloads and eGifts', description: 'Saved cards, quick-pay reloads and auto reload, and eGifts bought for someone by email.' },
  { name: 'Balances & Rewards', description: 'What the apps show a logged-in customer: balances, the rewards they can redeem, their linked cards.' },
  { name: 'Transaction History', description: 'A customer\'s history of purchases, reloads and eGifts, and rating and tipping a purchase.' },
  { name: 'Order', description: 'Purchases from a point of sale (api_key): earn and spend points and quick pay, and voids.' },
  { name: 'Inbox', description: 'Messages to customers: from the program (admin, bearer) and its own (welcome, tier, reward, eGift).' },
  { name: 'Campaign', description: 'Promotion codes: the program manages them (bearer), customers enter them in the app (session_key).' },
  { name: 'Spending Rules', description: 'Resource style, bearer token. Rewards customers redeem with points.' },
  { name: 'Configuration', description: 'Resource style, bearer token. Earning rules, tiers, program settings, content pages and stores.' },
  { name: 'Webhooks', description: 'Resource style, bearer token. Signed, retried, replayable events for the program’s integrations (docs/decisions.md, "Webhooks").' },
  { name: 'Back office', description: 'The merchant’s staff (owner, manager, store manager): sign-in, staff, stores and keys, customers, audit log. Bearer: a staff session token.' },
  { name: 'Chain sync', description: 'Central and store nodes (docs/sync.md): pairing, push, pull, the poke stream, nodes, exceptions, offline policy; a store’s sync status.' },
  { name: 'Node', description: 'The node itself: health and access tokens.' },
] as const;

export type SectionName = (typeof SECTIONS)[number]['name'];

export interface OperationDoc {
  section: SectionName;
  summary: string;
  description: string;
}

/** Keyed by `METHOD /path` with OpenAPI path parameters (`/currencies/{id}`). */
export const OPERATION_DOCS: Record<string, OperationDoc> = {
  // ---- Currencies
  'GET /currencies': { section: 'Currencies', summary: 'List currencies', description: 'A page of the program\'s currencies, 25 most recent first by default. Filter with query `n:<name>` and `s:<status>`; sort and order are accepted.' },
  'POST /currencies': { section: 'Currencies', summary: 'Create a currency', description: 'A new ACTIVE currency. `code` (ISO 4217) makes it cash-like; without it, it is a loyalty currency. Names are unique in a program.' },
  'GET /currencies/{id}': { section: 'Currencies', summary: 'Retrieve a currency', description: 'One currency of the program by its `curr_` id; another program\'s is a 404.' },
  'PUT /currencies/{id}': { section: 'Currencies', summary: 'Update a currency', description: 'Change the name, code (only while it holds no balances) or status (ACTIVE, INACTIVE, ARCHIVED).' },
  'DELETE /currencies/{id}': { section: 'Currencies', summary: 'Delete a currency', description: 'The currency is no longer accessible. Answers `{}`.' },

  // ---- Cards
  'GET /cards': { section: 'Cards', summary: 'List cards', description: 'A page of the program\'s cards, 25 most recent first by default. Filter with query `n:<number>` and `s:<status>`.' },
  'POST /cards': { section: 'Cards', summary: 'Create a card', description: 'A new ACTIVE card with its number, and optionally a pin and free-form data. Numbers are unique in a program.' },
  'GET /cards/{id}': { section: 'Cards', summary: 'Retrieve a card', description: 'One card of the program by its `card_` id.' },
  'PUT /cards/{id}': { section: 'Cards', summary: 'Update a card', description: 'Only `data` and `status` can change on a card.' },
  'DELETE /cards/{id}': { section: 'Cards', summary: 'Delete a card', description: 'The card is no longer accessible. Answers `{}`.' },

  // ---- OnScreen
  'POST /onscreen': { section: 'OnScreen', summary: 'Check a customer in', description: 'Opens a point-of-sale session at the store of the api_key from any identification: card number, email, mobile phone, app token, cedula or passport. Answers 201 with the session hash.' },
  'GET /onscreen': { section: 'OnScreen', summary: 'Retrieve the checked-in customer', description: 'The customer of a session hash: name, tier, balances, rewards offered, last visit, usual items and recent transactions. A kiosk key reads what a kiosk shows only: the same fields, with contact details, birth date, card, auto reload, last visit and usual items left empty.' },
  'DELETE /onscreen': { section: 'OnScreen', summary: 'Close a session', description: 'Closes the session of `pos_session_hash` so the next customer can check in. Answers `{}`.' },
  'GET /onscreen/queue': { section: 'OnScreen', summary: 'List the queue', description: 'Everyone checked in at the store (by the app, a kiosk or a cashier), oldest first, each with its session hash. A kiosk key reads first names and last-name initials, no email.' },
  'POST /onscreen/register': { section: 'OnScreen', summary: 'Register in store', description: 'Opens an account from a phone number or an email at the counter or kiosk and checks the new customer in at once (an existing customer with that contact is checked in). Given both, the counter adds the one an existing customer lacks; a kiosk key gets 403 forbidden for that. Answers 201.' },
  'POST /vendor/store/check-in': { section: 'OnScreen', summary: 'Check in from the app', description: 'The logged-in customer checks themselves in at one of the program\'s stores (session_key). Answers 201 with the session.' },
  'GET /app/events': { section: 'OnScreen', summary: 'Follow the store\'s events', description: 'A server-sent event stream of the store\'s check-ins, closed sessions, orders and scans, so screens update without polling.' },
  'POST /app/scans': { section: 'OnScreen', summary: 'Post a wedge scan', description: 'A line a keyboard-wedge scanner typed on a screen: decoded (barcode, AIM prefix, magnetic stripe) and checked in like any identification.' },
  'GET /app/scanners': { section: 'OnScreen', summary: 'List the node\'s scanners', description: 'The HID scanners and card readers the node reads: kind, mode, connected, last scan, and the station each serves (counter, kiosk, or null when not assigned).' },
  'PUT /app/scanners/station': {
    section: 'OnScreen',
    summary: 'Assign a scanner to a station',
    description: 'Cashier or integration keys of the store the scanners serve: `{scanner, station}` with a listed scanner\'s `id` or `device` and `counter`, `kiosk` or null (not assigned). Kept by the node under the device\'s identity; scans then carry the station in the event stream, and kiosks greet only kiosk-station (and unassigned) scanners. 404 `scanner_not_found` for a scanner not listed; kiosk keys get 403.',
  },
  'GET /app/terminal': { section: 'OnScreen', summary: 'Describe a screen key', description: 'The role (cashier or kiosk), vendor, store and point of sale of an api_key: the screens\' sign-in check.' },

  // ---- Countries and regions
  'GET /countries': { section: 'Countries and regions', summary: 'List countries', description: 'Every country the program serves, with calling code, flag and address rules.' },
  'GET /countries/{country_id}/regions': { section: 'Countries and regions', summary: 'List regions of a country', description: 'The regions (states, provinces) of one country, for address forms.' },
  'GET /flags/{file}': { section: 'Countries and regions', summary: 'A country flag', description: 'The SVG flag a country\'s `flag_url` points to.' },

  // ---- Users
  'POST /user/register': { section: 'Users', summary: 'Register a customer', description: 'Creates an account and links it to the vendor. Optional `phone_number` as `{number, code}` or an E.164 string: an invalid one is a 400, one another account uses a 409, never dropped. An email already registered is a 409, a guest opened at a counter too (no password yet): its owner claims it with a password reset, sent to that email.' },
  'POST /user/authenticate': { section: 'Users', summary: 'Log in', description: 'Email, password and vendor: answers the login session whose `session_identifier` is the `session_key` of every customer call.' },
  'POST /user/logout': { section: 'Users', summary: 'Log out', description: 'Ends the login of `session_key`. Answers `{}`.' },
  'GET /user/logout': { section: 'Users', summary: 'Log out (GET)', description: 'The same as POST /user/logout, for clients that log out with GET.' },
  'POST /user/password-reset/reset': { section: 'Users', summary: 'Request a password reset', description: 'Emails a reset token to the account of that email with the vendor. Answers `{}` whether or not the account exists.' },
  'POST /user/password-reset/apply': { section: 'Users', summary: 'Set a new password with a reset token', description: 'The emailed token and the new password, once. Ends every login of the account.' },
  'GET /user/profile': { section: 'Users', summary: 'Retrieve the profile', description: 'The logged-in customer\'s profile with this vendor: contact details, address, verification, language, consent, auto reload.' },
  'PUT /user/profile': { section: 'Users', summary: 'Update the profile', description: 'Send only what changes. `phone_number` as `{number, code}` or an E.164 string (empty clears it). A new email or password needs `current_password`.' },
  'GET /user/isValidated': { section: 'Users', summary: 'Verification status', description: 'Whether the account is verified by any method the vendor enables, and per method.' },
  'GET /user/activate': { section: 'Users', summary: 'Verify with a token', description: 'Activates the account with the token received by email or SMS.' },
  'GET /user/activate/email': { section: 'Users', summary: 'Send a verification email', description: 'Sends the activation token by email. The session key travels as `session_identifier` (or `session_key`).' },
  'GET /user/activate/sms': { section: 'Users', summary: 'Send a verification SMS', description: 'Sends the activation token by SMS, optionally to a new `phone` (then `country` too).' },
  'GET /user/email/exists': { section: 'Users', summary: 'Is the email registered?', description: 'Whether an account uses the email, and the vendor it first registered with. Rate limited.' },
  'GET /user/mobile/exists': { section: 'Users', summary: 'Is the mobile number available?', description: 'True when the number is valid and no account uses it. Rate limited.' },
  'GET /user/cedula/exists': { section: 'Users', summary: 'Is the cedula registered?', description: 'Whether an account uses the national id, and whether it is valid in the vendor\'s country. Rate limited.' },
  'POST /user/token/request': { section: 'Users', summary: 'Request a barcode token', description: 'A short-lived token and its barcode (data-URI PNG) the app shows at the counter to check in.' },
  'PUT /user/password': { section: 'Users', summary: 'Change the password', description: 'With `current_password`. Answers `{}`.' },
  'GET /user/personal-data': {
    section: 'Users',
    summary: 'A copy of my data',
    description:
      'The logged-in customer’s own copy of everything the session’s program holds about them (GDPR access and portability): the same document staff download from the back office (`format` punchcard.personal-data, `version` 1), ISO times, amounts in minor units, sent as a file to save. 5 an hour per account, 20 per client (429 rate_limited). At a paired store the call is forwarded to central, which holds the whole program (503 central_unreachable while it cannot be reached). Extension.',
  },
  'POST /user/account/deactivate': { section: 'Users', summary: 'Deactivate the account', description: 'With the password: the account is deactivated until the customer logs in to the app again.' },
  'DELETE /vendor/{vendor_id}/customers/{user_id}/submit': {
    section: 'Users',
    summary: 'Ask to delete the account',
    description:
      'Emails a deletion code to the logged-in customer; the email says what the deletion gives up (money, points). Answers `{}`. While the customer holds money (stored value) at the program: 409 `stored_value_remaining`, no code sent, unless `forfeit_balances=true` (extension; query or body). Points alone never refuse it.',
  },
  'DELETE /vendor/{vendor_id}/customers': {
    section: 'Users',
    summary: 'Delete the account',
    description:
      'With the emailed code: the account is deleted. Answers `{}`. Money held at the program is checked again: 409 `stored_value_remaining` (the code stays good) unless `forfeit_balances: true` (extension; body or query). What is given up, money and points, goes to zero by `forfeit` ledger entries.',
  },

  // ---- Billing profiles, reloads and eGifts
  'POST /user/billing-profile/add': { section: 'Billing profiles, reloads and eGifts', summary: 'Save a card', description: 'Tokenizes a credit card with the payment gateway into a billing profile. The card number and CVV are never stored.' },
  'GET /user/billing-profile/list': { section: 'Billing profiles, reloads and eGifts', summary: 'List saved cards', description: 'The customer\'s billing profiles: masked number, brand, expiry, default.' },
  'POST /user/billing-profile/default': { section: 'Billing profiles, reloads and eGifts', summary: 'Choose the default card', description: 'The profile used by auto reload and background charges.' },
  'DELETE /user/billing-profile': { section: 'Billing profiles, reloads and eGifts', summary: 'Remove a saved card', description: 'No further charges can be made to it.' },
  'POST /user/billing-profile/reload': { section: 'Billing profiles, reloads and eGifts', summary: 'Reload quick pay', description: 'Charges a saved card and credits the amount when the gateway reports success; a late result answers Pending (ask the status endpoint).' },
  'GET /user/billing-profile/reload/status': { section: 'Billing profiles, reloads and eGifts', summary: 'Status of a reload', description: 'Asks the gateway about a charge whose result was not reported yet.' },
  'GET /user/reload/settings': { section: 'Billing profiles, reloads and eGifts', summary: 'Auto-reload settings', description: 'Threshold, amount and the billing profile of auto reload.' },
  'PUT /user/reload/settings': { section: 'Billing profiles, reloads and eGifts', summary: 'Set auto reload', description: 'All three of threshold, amount and billing profile enable it; any of them 0 or null disables it.' },
  'POST /vendor/{vendor_id}/egift': { section: 'Billing profiles, reloads and eGifts', summary: 'Send an eGift', description: 'A guest pays with card details in `billing`; a logged-in buyer (session_key) names a saved card as `user_billingprofile` or `billing: {id}`. `send_date` in the future schedules the email (the card is charged now). The recipient gets a claim code by email.' },
  'POST /user/egift/claim': { section: 'Billing profiles, reloads and eGifts', summary: 'Claim an eGift', description: 'The emailed code credits the gift to the logged-in customer\'s quick-pay balance with that vendor.' },

  // ---- Balances & Rewards
  'GET /user/quick-pay/balance': { section: 'Balances & Rewards', summary: 'Quick-pay balance', description: 'The logged-in customer\'s stored-value balance and its currency.' },
  'GET /user/currency/balance': { section: 'Balances & Rewards', summary: 'All balances', description: 'One entry per active currency (quick pay and loyalty) with upcoming expirations.' },
  'GET /user/reward/list': { section: 'Balances & Rewards', summary: 'Rewards for the customer', description: 'The program\'s rewards with how many the customer can redeem now and progress to the next, and their tier and the next.' },
  'GET /user/card/list': { section: 'Balances & Rewards', summary: 'List linked cards', description: 'The program\'s cards linked to the logged-in customer, newest link first.' },
  'POST /user/card/add': { section: 'Balances & Rewards', summary: 'Link a card', description: 'Links an existing card of the program by number (and pin when it has one). Pin guesses are rate limited.' },
  'DELETE /user/card': { section: 'Balances & Rewards', summary: 'Unlink a card', description: '`user_card` as the link\'s number or `{id}`. Another customer\'s link is a 404.' },
  'GET /user/card-3rdparty/list': { section: 'Balances & Rewards', summary: 'List third-party cards', description: 'Cards of other programs linked to the account: always an empty collection, as Punchcard links none yet.' },
  'GET /card/balance': { section: 'Balances & Rewards', summary: 'Balance of an unlinked card', description: 'The balances of a gift card nobody linked, by number and pin. Rate limited.' },

  // ---- Transaction History
  'GET /user/transaction/list': { section: 'Transaction History', summary: 'Transaction history', description: 'Newest first, paged. With session_key: the logged-in customer\'s; with api_key and `user`: a store asking about a customer of its program. `rating.window` and `tip.window` are the seconds left to rate or tip.' },
  'POST /user/transaction/rate': { section: 'Transaction History', summary: 'Rate a purchase', description: 'A rating 1-5 and an optional comment for one of the customer\'s store purchases, within 7 days of it; rating again in the window replaces it.' },
  'POST /user/transaction/tip': { section: 'Transaction History', summary: 'Tip for a purchase', description: 'Once per purchase, within 24 hours, at most its total. The tip is recorded for the store and shown in the history; no money moves.' },

  // ---- Order
  'POST /order': { section: 'Order', summary: 'Place an order', description: 'From the point of sale: identifies the customer like check-in (or by `pos_session_hash`; a `card_number` sent beside it must name the same customer, else 400 `identification_conflict`), spends quick pay and redeems rewards, earns points on the subtotal, records the history and closes the customer\'s session.' },
  'DELETE /order': { section: 'Order', summary: 'Void an order', description: 'Reverses everything the order with that receipt number moved, as a void record in the history.' },

  // ---- Inbox
  'GET /user/message/list': { section: 'Inbox', summary: 'List inbox messages', description: 'The logged-in customer\'s messages from the program, newest first, paged, with the unread count.' },
  'PUT /user/message': { section: 'Inbox', summary: 'Mark read or delete a message', description: '`message` (id or `{id}`) with `read: true|false` or `deleted: true`. Another customer\'s message is a 404.' },
  'POST /messages': { section: 'Inbox', summary: 'Send a message', description: 'The program writes to one member (`user`) or to every member (`to: "all"`); each inbox gets its own copy. Answers 201 with the number of recipients.' },

  // ---- Campaign
  'GET /promotions': { section: 'Campaign', summary: 'List promotions', description: 'The program\'s promotion codes, newest first. Filter with `s:ACTIVE|PAUSED` and `n:<code prefix>`.' },
  'POST /promotions': { section: 'Campaign', summary: 'Create a promotion', description: 'A code for points (in a loyalty currency) or for a reward, with an optional window, a total cap and a per-customer cap (default 1).' },
  'GET /promotions/{id}': { section: 'Campaign', summary: 'Retrieve a promotion', description: 'One promotion by its `promo_` id, with how many times it was awarded.' },
  'PUT /promotions/{id}': { section: 'Campaign', summary: 'Update or pause a promotion', description: '`status: PAUSED` pauses it, `ACTIVE` resumes it; the name, window and caps can change, the code and prize cannot.' },
  'POST /vendor/promotion/award': { section: 'Campaign', summary: 'Enter a promotion code', description: 'The logged-in customer enters a code of their program: its points (or its reward\'s cost) are credited once per customer, while ACTIVE, in its window and under its caps.' },

  // ---- Spending Rules
  'GET /rewards': { section: 'Spending Rules', summary: 'List rewards', description: 'The program\'s rewards (spending rules), newest first.' },
  'POST /rewards': { section: 'Spending Rules', summary: 'Create a reward', description: 'A reward customers redeem for a cost in a loyalty currency, with an optional window.' },
  'GET /rewards/{id}': { section: 'Spending Rules', summary: 'Retrieve a reward', description: 'One reward by its `rwd_` id.' },
  'PUT /rewards/{id}': { section: 'Spending Rules', summary: 'Update a reward', description: 'Change its name, texts, cost, currency, window or status.' },
  'DELETE /rewards/{id}': { section: 'Spending Rules', summary: 'Delete a reward', description: 'It is no longer offered; past redemptions stay in the history.' },

  // ---- Configuration
  'GET /earning-rules': { section: 'Configuration', summary: 'List earning rules', description: 'How the program\'s customers earn points, newest first.' },
  'POST /earning-rules': { section: 'Configuration', summary: 'Create an earning rule', description: 'Points per amount of subtotal in a loyalty currency, with rounding, an optional cap per order and a window.' },
  'GET /earning-rules/{id}': { section: 'Configuration', summary: 'Retrieve an earning rule', description: 'One earning rule by its `erul_` id.' },
  'PUT /earning-rules/{id}': { section: 'Configuration', summary: 'Update an earning rule', description: 'Change any of its fields; orders judge rules at the moment of sale.' },
  'DELETE /earning-rules/{id}': { section: 'Configuration', summary: 'Delete an earning rule', description: 'Orders stop earning by it.' },
  'GET /tiers': { section: 'Configuration', summary: 'List tiers', description: 'The program\'s tiers by threshold.' },
  'POST /tiers': { section: 'Configuration', summary: 'Create a tier', description: 'A tier reached by earning `threshold` points within `window_days` (or ever). Thresholds are unique.' },
  'GET /tiers/{id}': { section: 'Configuration', summary: 'Retrieve a tier', description: 'One tier by its `tier_` id.' },
  'PUT /tiers/{id}': { section: 'Configuration', summary: 'Update a tier', description: 'Change its name, texts, threshold or window.' },
  'DELETE /tiers/{id}': { section: 'Configuration', summary: 'Delete a tier', description: 'A program keeps at least one tier.' },
  'GET /program/settings': { section: 'Configuration', summary: 'Program settings', description: 'Settings of the whole program, such as how long points last.' },
  'PUT /program/settings': { section: 'Configuration', summary: 'Update program settings', description: 'Change the points expiry (days, or null for never), the referral points and the payment limits (the largest eGift and the largest reload, whole minor units of the quick-pay currency; null: the default). Fields not listed here are ignored, as on every call: the reply is the settings as they stand.' },
  'GET /vendor/content/{slug}': { section: 'Configuration', summary: 'A content page', description: 'Terms of service, privacy policy or FAQ of the vendor, as HTML.' },
  'PUT /vendor/content/{slug}': { section: 'Configuration', summary: 'Set a content page', description: 'The vendor\'s own HTML for a page (bearer); a new version number each time.' },
  'GET /vendor/store/list': { section: 'Configuration', summary: 'List stores', description: 'The vendor\'s stores with address and coordinates; with a position and radius, the ones nearby, nearest first.' },

  // ---- Webhooks, back office, chain sync, payment exceptions, store administration
  'GET /payment-exceptions': { section: 'Billing profiles, reloads and eGifts', summary: 'List payment exceptions', description: 'Charges found paid without their gift, and late reloads refused after a quick-pay currency switch: what staff must refund or credit. Open ones first.' },
  'POST /payment-exceptions/{id}/resolve': { section: 'Billing profiles, reloads and eGifts', summary: 'Resolve a payment exception', description: '`refund` through the payment gateway, or `credit` the customer; the exception closes with who and how.' },
  'GET /sync/status': { section: 'Chain sync', summary: 'Sync status of this store', description: 'Paired or not, central’s address, link up or down, events waiting to be sent and the age of the oldest, last push and pull, cursor lag, first-sync progress, last error. No credential, like /health.' },
  'GET /sync/rejected': { section: 'Chain sync', summary: 'Events central refused', description: 'Cashier key. This store’s events central refused, newest first: when the store made each, when central refused it, and central’s `code` and `message` (which may name a receipt or a card). `limit` 1–200, default 50.' },
  'POST /sync/pairing': { section: 'Chain sync', summary: 'Pair this store with central', description: 'From the store’s Settings (cashier key): central’s address and a pairing code. A store with data of its own needs `replace_local_data` (its database is set aside, kept). 202, then the node restarts paired and runs its first sync; sign in again with a key of the chain.' },
  'DELETE /sync/pairing': { section: 'Chain sync', summary: 'Unpair this store', description: 'Cashier key. Refused (409 `unsent_sales`) while sales wait to be sent, unless `discard_unsent=true`. 202, then the node restarts unpaired; its chain database is set aside (kept).' },
  'POST /sync/pairing-codes': { section: 'Chain sync', summary: 'Issue a pairing code', description: 'A one-time code (XXXX-XXXX, 15 minutes) for one of the program’s stores; a store node pairs with it.' },
  'POST /sync/pair': { section: 'Chain sync', summary: 'Pair a store node', description: 'Spends a pairing code: central numbers the node and answers its credential (shown once). Guessing is rate-limited.' },
  'POST /sync/push': { section: 'Chain sync', summary: 'Push a store’s events', description: 'A page of the store’s events in node_seq order, applied in one transaction, each answered with its verdict; a gap answers `resume_from`. A store of a later schema level (header `punchcard-schema`) whose rows name a table or column central lacks is refused whole: 409 `store_newer_than_central`, upgrade central. Node credential.' },
  'GET /sync/pull': { section: 'Chain sync', summary: 'Pull central’s changes', description: 'The vendor’s row changes after `after`, in commit order, with the next cursor and central’s head. Node credential.' },
  'GET /sync/snapshot': { section: 'Chain sync', summary: 'Snapshot for a first sync', description: 'The vendor’s current rows of one replicated `table` after the id `after` (up to `limit`, 10,000), shaped as the pull ships them, with central’s log head; `estimate=true` adds the snapshot’s size and each table’s count of it (`counts`: a store skips the tables counted 0). A new store reads the tables in order and then pulls the log from the first page’s head. Node credential.' },
  'GET /sync/stream': { section: 'Chain sync', summary: 'Poke stream', description: 'Server-sent `changes` events whenever central’s log grows, so stores pull at once. Node credential.' },
  'POST /sync/customer': { section: 'Chain sync', summary: 'Fetch one customer before their turn', description: 'A store whose first sync has not brought a customer yet asks for them by what the counter was given (card number, email, phone…): their identifiers, membership and balances in the node’s program. Node credential; central’s refusals (customer_not_found, card_not_linked, …) are the store’s answer.' },
  'GET /sync/nodes': { section: 'Chain sync', summary: 'List store nodes', description: 'The program’s paired nodes: store, last event applied, cursor, last seen, revoked.' },
  'DELETE /sync/nodes/{id}': { section: 'Chain sync', summary: 'Revoke a store node', description: 'Its credential stops working (401 node_revoked); it may pair again with a new code.' },
  'GET /sync/exceptions': { section: 'Chain sync', summary: 'List sync exceptions', description: 'What offline selling left to look at: overdrafts, merged customers, card and receipt conflicts, rejected events. `open=true` for unresolved ones.' },
  'GET /sync/offline-policy': { section: 'Chain sync', summary: 'Offline caps', description: 'Quick pay and points a store may spend per order and per customer per day while it cannot reach central.' },
  'PUT /sync/offline-policy': { section: 'Chain sync', summary: 'Set offline caps', description: 'Minor units of quick pay and points; null removes a cap. Stores apply them only while offline (422 offline_limit).' },
  'POST /webhooks': { section: 'Webhooks', summary: 'Create a webhook endpoint', description: 'A URL and the event kinds it wants; answers its `wh_` id and signing secret (shown only here and on rotation).' },
  'GET /webhooks': { section: 'Webhooks', summary: 'List webhook endpoints', description: 'The program’s endpoints with their kinds and status.' },
  'GET /webhooks/{id}': { section: 'Webhooks', summary: 'Retrieve a webhook endpoint', description: 'One endpoint by its `wh_` id.' },
  'PUT /webhooks/{id}': { section: 'Webhooks', summary: 'Update a webhook endpoint', description: 'Change its URL, kinds, description or status (pause and resume).' },
  'DELETE /webhooks/{id}': { section: 'Webhooks', summary: 'Delete a webhook endpoint', description: 'No more deliveries to it.' },
  'POST /webhooks/{id}/rotate-secret': { section: 'Webhooks', summary: 'Rotate the signing secret', description: 'A new secret; the old one keeps signing alongside it for 24 hours.' },
  'POST /webhooks/{id}/test': { section: 'Webhooks', summary: 'Send a test event', description: 'A signed test delivery to the endpoint now.' },
  'GET /webhooks/{id}/deliveries': { section: 'Webhooks', summary: 'List deliveries', description: 'Each delivery with its status, attempts, last response code and time, newest first (order=ASC for oldest first), paged. Filter with query `s:<status>` (pending, sending, succeeded, failed, cancelled).' },
  'POST /webhooks/{id}/replay': { section: 'Webhooks', summary: 'Replay events', description: 'Deliver one event again, or every event of a time range.' },
  'POST /backoffice/sign-in': { section: 'Back office', summary: 'Sign in', description: 'Email and password of a staff member; answers a session token. Lockout like customers’; rate limited per client and per email.' },
  'POST /backoffice/sign-in/link': { section: 'Back office', summary: 'Sign in with a link', description: 'The one-time sign-in link `punchcard init` prints for the first owner.' },
  'POST /backoffice/invitations/accept': { section: 'Back office', summary: 'Accept an invitation', description: 'Choose a password for an invited staff account and sign in.' },
  'POST /backoffice/password-reset': { section: 'Back office', summary: 'Ask for a password reset', description: 'Emails a reset link if the address belongs to staff; answers the same either way. Rate limited per client and per email.' },
  'POST /backoffice/password-reset/confirm': { section: 'Back office', summary: 'Reset a password', description: 'The emailed token and a new password; other sessions end.' },
  'GET /backoffice/me': { section: 'Back office', summary: 'Who is signed in', description: 'The staff member of the session, their role, store and permissions, and whether they have a password (`has_password`: false for an owner signed in by a one-time link who has not chosen one).' },
  'POST /backoffice/me/password': { section: 'Back office', summary: 'Choose a first password', description: 'For a staff member signed in by a one-time sign-in link (`punchcard init --owner`, `punchcard owner`) who has no password yet: sets it (8–128 characters) and keeps the session. 409 `password_already_set` once one is set: a password is changed with the emailed reset.' },
  'POST /backoffice/sign-out': { section: 'Back office', summary: 'Sign out', description: 'Ends this session.' },
  'POST /backoffice/sign-out-everywhere': { section: 'Back office', summary: 'Sign out everywhere', description: 'Ends every session of this staff member.' },
  'GET /backoffice/staff': { section: 'Back office', summary: 'List staff', description: 'The program’s staff (owners only).' },
  'POST /backoffice/staff': { section: 'Back office', summary: 'Invite staff', description: 'An invitation by email with a role (and a store for store managers).' },
  'PUT /backoffice/staff/{id}': { section: 'Back office', summary: 'Update staff', description: 'Change a role, store or status; the last active owner stays.' },
  'GET /backoffice/audit': { section: 'Back office', summary: 'Audit log', description: 'Every back-office change: who, when, what, before and after; paged.' },
  'GET /backoffice/stores': { section: 'Back office', summary: 'List stores', description: 'The stores the staff member may see.' },
  'POST /backoffice/stores': { section: 'Back office', summary: 'Create a store', description: 'Address, coordinates, phone, opening hours, time zone, status.' },
  'GET /backoffice/stores/{id}': { section: 'Back office', summary: 'Retrieve a store', description: 'One store the staff member may see.' },
  'PUT /backoffice/stores/{id}': { section: 'Back office', summary: 'Update a store', description: 'Change its address, hours, time zone or status.' },
  'GET /backoffice/stores/{id}/keys': { section: 'Back office', summary: 'List a store’s API keys', description: 'Each key’s label, role, hint and last use.' },
  'POST /backoffice/stores/{id}/keys': { section: 'Back office', summary: 'Issue an API key', description: 'A cashier, kiosk or integration key for the store; shown once.' },
  'DELETE /backoffice/keys/{id}': { section: 'Back office', summary: 'Revoke an API key', description: 'The counter or integration using it is refused from now on.' },
  'GET /backoffice/customers': { section: 'Back office', summary: 'Search customers', description: 'By any identifier the counter accepts, else by the start of a name; paged.' },
  'GET /backoffice/customers/{id}': { section: 'Back office', summary: 'A customer', description: 'Profile, balances, cards and recent ledger entries.' },
  'POST /backoffice/customers/{id}/adjustments': { section: 'Back office', summary: 'Adjust a balance', description: 'A compensating ledger entry with a required reason (never an edit); audited.' },
  'GET /backoffice/customers/{id}/pay-back': { section: 'Back office', summary: 'What can be paid back', description: 'The customer’s quick-pay balance and how much of it can go back to the cards its reloads were paid with (extension).' },
  'POST /backoffice/customers/{id}/pay-backs': {
    section: 'Back office',
    summary: 'Pay back stored value',
    description:
      'Owners and managers pay out all or part of a positive quick-pay balance, in cash or refunded to the cards of its reloads (newest first), as a `payback` ledger entry; audited; the same idempotency_key answers the same pay-back. More than the balance: 422 payback_exceeds_balance; more than the cards can take: 422 payback_exceeds_card_refunds; the gateway refused: 422 payback_refused, balance unchanged; central’s at a paired store (409 payback_managed_by_central). Extension.',
  },
  'POST /backoffice/customers/{id}/block': { section: 'Back office', summary: 'Block a customer', description: 'With a required reason: refused at check-in, orders and card payments (reload, auto reload, eGift, adding a card: customer_blocked) until unblocked; audited.' },
  'POST /backoffice/customers/{id}/unblock': { section: 'Back office', summary: 'Unblock a customer', description: 'They may check in and order again; audited.' },
  'POST /backoffice/customers/{id}/remove': {
    section: 'Back office',
    summary: 'Remove a member at their request',
    description:
      'For a customer who asks to leave and cannot do it in the app: as their own account deletion, the membership and what the program keeps of the person go; erased when no other program holds them. A reason is audited; a balance still held must be forfeited (forfeit_balances), else 409 balance_remaining; what is forfeited goes to zero by `forfeit` ledger entries.',
  },
  'GET /backoffice/customers/{id}/personal-data': {
    section: 'Back office',
    summary: 'A copy of a member’s data',
    description:
      'Everything the program holds about the member (GDPR access and portability) as one JSON document, `format` punchcard.personal-data, `version` 1, sent as a file to save: profile, membership and consents, balances, loyalty and saved cards (brand, last four and expiry, never a number), ledger, orders with items, history, check-ins, payments, eGifts, promotions, referrals, inbox, messages sent, app sessions. Never a secret, nothing of other people or other programs. Owners and managers (403 forbidden for a store manager); a person erased or gone from the program is 404 customer_not_found; audited. Central’s at a paired store, which holds only part of it (409 personal_data_managed_by_central). Extension.',
  },
  'GET /backoffice/customers/export.csv': {
    section: 'Back office',
    summary: 'Every member, as CSV',
    description:
      'Every current member of the program (removed and erased people are not in it), one row each, as a file to save: UTF-8 with a byte-order mark, a header, CRLF. First the import’s columns under its names (`first_name`, `last_name`, `email`, `phone`, `card`, `points`, `quick_pay`, `birthdate`, `marketing`, `sms_marketing`, `language`), so the file imports unchanged into another program (`points`: the first active loyalty currency; `quick_pay`: the quick-pay currency); then `member_since`, `tier`, `blocked`, `other_cards`, and one column per currency: `points:<name>` and `stored_value:<code>`, balances from the ledger as plain decimals in the currency’s units. Text that a spreadsheet would run as a formula starts with an apostrophe. Streamed page by page. Owners only (403 forbidden for managers and store managers); audited as `customers.exported` with the rows written. Central’s at a paired store (409 member_list_managed_by_central). Extension.',
  },
  'PUT /backoffice/customers/{id}/email': {
    section: 'Back office',
    summary: 'Add an email to a customer who has none',
    description: 'A guest the counter registered by phone then claims the app account with a password reset to it. Refused for a customer who has an email, an address another customer holds, and at a paired store; audited.',
  },
  'GET /backoffice/program': { section: 'Back office', summary: 'The program', description: 'Currencies, earning rules, rewards, tiers, points expiry, offline caps (and where they apply) and content pages.' },
  'POST /backoffice/program/currencies': { section: 'Back office', summary: 'Add a currency', description: 'As POST /currencies, audited.' },
  'PUT /backoffice/program/currencies/{id}': { section: 'Back office', summary: 'Change a currency', description: 'As PUT /currencies/{id}, audited.' },
  'POST /backoffice/program/earning-rules': { section: 'Back office', summary: 'Add an earning rule', description: 'As POST /earning-rules, audited; the next order earns by it.' },
  'PUT /backoffice/program/earning-rules/{id}': { section: 'Back office', summary: 'Change an earning rule', description: 'As PUT /earning-rules/{id}, audited with before and after.' },
  'POST /backoffice/program/rewards': { section: 'Back office', summary: 'Add a reward', description: 'As POST /rewards, audited.' },
  'PUT /backoffice/program/rewards/{id}': { section: 'Back office', summary: 'Change a reward', description: 'As PUT /rewards/{id}, audited.' },
  'POST /backoffice/program/tiers': { section: 'Back office', summary: 'Add a tier', description: 'As POST /tiers, audited.' },
  'PUT /backoffice/program/tiers/{id}': { section: 'Back office', summary: 'Change a tier', description: 'As PUT /tiers/{id}, audited.' },
  'PUT /backoffice/program/settings': { section: 'Back office', summary: 'Points expiry and referrals', description: 'As PUT /program/settings, audited.' },
  'PUT /backoffice/program/country': {
    section: 'Back office',
    summary: "Change the program's country",
    description:
      'ISO 3166-1 alpha-2. From the next request, phones typed without a +code are read in it, cédulas are checked by its rules and amounts are written as it writes them; phones already saved (E.164) and stores keep theirs. A program serving a list of countries must serve its own (400 `validation_failed` on `country`). Audited; a paired store receives it with the program.',
  },
  'PUT /backoffice/program/language': {
    section: 'Back office',
    summary: "Change the program's language",
    description:
      '`en` or `es` (400 `validation_failed` on `language` otherwise). From the next request, customers who chose no language get mail and content pages in it, and the counter and kiosk screens open in it; customers who chose theirs keep it, and names already given (currencies, tiers) stay as written. Audited; a paired store receives it with the program.',
  },
  'PUT /backoffice/program/offline-caps': { section: 'Back office', summary: 'Offline caps', description: 'Central only (409 offline_caps_at_central elsewhere): what a paired store may spend per order and per customer per day while offline.' },
  'PUT /backoffice/program/content/{slug}': { section: 'Back office', summary: 'A content page', description: 'Terms of service, privacy policy or FAQ in one language, audited.' },
  'GET /backoffice/dashboard': { section: 'Back office', summary: 'Dashboard', description: 'Today and the last 30 days per day and per store: check-ins, orders, points, stored value, reloads, eGifts claimed, outstanding stored value, eGifts sold and not yet claimed, and the total liability.' },
  'GET /backoffice/dashboard/period': {
    section: 'Back office',
    summary: 'Statement of a period',
    description:
      'Month end: the days from–to (ISO, both included, at most 366; 400 `invalid_period` otherwise) counted in the store’s time zone (the program’s first store’s for the whole program), per day and store: check-ins, orders, points, and the quick-pay ledger’s moves — loaded, spent, returned by voids, adjusted, forfeited, paid back (of which to cards), other — with the liability at the start and end, so that start + net change = end; apart, the eGifts sold (charged, in no balance until claimed). Moves made at no store are on the program’s row. A store manager’s is their store’s.',
  },
  'GET /backoffice/dashboard/period.csv': {
    section: 'Back office',
    summary: 'Statement of a period, as CSV',
    description: 'The same statement as a file for the accountant: UTF-8 with a byte-order mark, a header, one row per day and store and per day the program’s row, amounts as plain decimals in the currency’s units with its code, days ISO in the statement’s time zone.',
  },
  'POST /backoffice/imports/customers': {
    section: 'Back office',
    summary: 'Import members: upload and preview',
    description:
      'Owners: the old loyalty system’s CSV export (`content_base64`, at most 8 MB: 413 import_file_too_large) read as `punchcard import customers` reads it (an unreadable file: 400 validation_failed, field `file`, the CLI’s words). Answers 202 with a job: the dry run (`dry_run` true), every row checked as for real and nothing kept; poll GET …/{id} for its progress and report. One import at a time per program (409 import_in_progress); a paired store: 409 customers_managed_by_central. Extension.',
  },
  'POST /backoffice/imports/customers/{id}/confirm': {
    section: 'Back office',
    summary: 'Import members: confirm a preview',
    description: 'Imports a finished preview’s file for real, once (409 import_not_confirmable otherwise): 202 with the new job, whose batches are audited as `customers.import` by the owner. A job keeps its file one day after it ended (and loses it sooner when a person in it is erased): after that, 409 import_file_expired (upload the file again). Extension.',
  },
  'GET /backoffice/imports/customers': { section: 'Back office', summary: 'Imports of members', description: 'The program’s last imports (the running one and the last five finished), newest first, without their reports. Extension.' },
  'GET /backoffice/imports/customers/{id}': {
    section: 'Back office',
    summary: 'An import of members',
    description: 'Its status (running, finished, failed), the rows done so far and, once finished, the report as `punchcard import customers --json` gives it: counts, refused rows by reason and every row not imported by line. A restart forgets it (404 import_not_found). Extension.',
  },
  'GET /backoffice/imports/customers/{id}/problems.csv': {
    section: 'Back office',
    summary: 'An import’s refused rows, as CSV',
    description: 'The refused rows to fix and upload again: the columns the import read as the file had them (same separator), then `problem_line`, `problem_reason` and `problem` (words in `language`, en or es). UTF-8 with a byte-order mark. Kept one day after the import ended (sooner if a person in the file is erased): then 409 import_file_expired (upload the file again). Extension.',
  },
  'GET /backoffice/chain': { section: 'Back office', summary: 'Chain health', description: 'Each paired store node (last seen, pending changes, first sync, rejected events) and the sync exceptions to resolve.' },
  'POST /backoffice/chain/exceptions/{id}/resolve': { section: 'Back office', summary: 'Resolve a sync exception', description: 'With a note of how; audited.' },
  'DELETE /backoffice/chain/nodes/{id}': { section: 'Back office', summary: 'Unpair a store node', description: 'A till replaced or gone for good (owners and managers): central refuses its syncs from its next request, and the node takes no check-ins or sales until paired again; audited. 404 `sync_node_not_found` for a node already unpaired.' },
  'GET /backoffice/payment-exceptions': {
    section: 'Back office',
    summary: 'Payment exceptions',
    description:
      'Owners and managers: as GET /payment-exceptions (open by default, newest first), paged by offset and limit (default 25, at most 100) with the total, the customer behind each charge (null for a guest, whose contact as the purchase took it is `guest_buyer`) and amounts in minor units.',
  },
  'POST /backoffice/payment-exceptions/{id}/resolve': { section: 'Back office', summary: 'Resolve a payment exception', description: 'Owners and managers: as POST /payment-exceptions/{id}/resolve (`refund` or `credit`, the same state rules and refusals); audited (payment_exception.refund or .credit).' },
  'GET /backoffice/unfinished-paybacks': { section: 'Back office', summary: 'Unfinished card pay-backs', description: 'Owners and managers: card pay-backs across customers whose refund outcome is unknown (older than 5 minutes), oldest first, with the customer to contact; `stuck` after a day. Paged by offset and limit. Extension.' },
  'POST /backoffice/unfinished-paybacks/{id}/finish': {
    section: 'Back office',
    summary: 'Finish a card pay-back',
    description: 'Owners and managers: asks the gateway again under the same refund keys (the money goes back once) and closes the pay-back; audited (customer.pay_back_finished). Finished already: 409 invalid_status_transition; another program’s: 404 payback_not_found; no answer yet: 503, left unfinished. Extension.',
  },
  'GET /backoffice/webhooks': { section: 'Back office', summary: 'Webhook endpoints', description: 'Owners and managers: each endpoint (url, events, status, why disabled) and every event kind.' },
  'POST /backoffice/webhooks': { section: 'Back office', summary: 'Add a webhook endpoint', description: 'As POST /webhooks, audited; the signing secret is in this reply only.' },
  'PUT /backoffice/webhooks/{id}': { section: 'Back office', summary: 'Change a webhook endpoint', description: 'As PUT /webhooks/{id} (pause, enable, url, events), audited with before and after.' },
  'DELETE /backoffice/webhooks/{id}': { section: 'Back office', summary: 'Delete a webhook endpoint', description: 'As DELETE /webhooks/{id}: what it had not received is cancelled; audited (webhook.delete, the endpoint as it was).' },
  'POST /backoffice/webhooks/{id}/rotate-secret': { section: 'Back office', summary: 'Rotate a webhook secret', description: 'As POST /webhooks/{id}/rotate-secret, audited; the new secret is in this reply only.' },
  'POST /backoffice/webhooks/{id}/test': { section: 'Back office', summary: 'Send a test event', description: 'A webhook.test event for this endpoint, delivered like any other; audited.' },
  'GET /backoffice/webhooks/{id}/deliveries': { section: 'Back office', summary: 'An endpoint’s deliveries', description: 'Newest first, paged: status, attempts, last status code or error.' },
  'POST /backoffice/webhooks/{id}/replay': { section: 'Back office', summary: 'Replay an event', description: 'The event sent again to this endpoint (a fresh delivery, due now); audited.' },
  'GET /stores': { section: 'Configuration', summary: 'List stores (admin)', description: 'The program’s stores with everything the back office sets.' },
  'POST /stores': { section: 'Configuration', summary: 'Create a store', description: 'Address, coordinates, phone, opening hours, time zone, status.' },
  'GET /stores/{id}': { section: 'Configuration', summary: 'Retrieve a store', description: 'One store of the program.' },
  'PUT /stores/{id}': { section: 'Configuration', summary: 'Update a store', description: 'Change its address, hours, time zone or status.' },

  // ---- Node
  'GET /health': { section: 'Node', summary: 'Node health', description: 'Status (`ok`; `degraded`, still 200: the node sells but needs attention — its disk under 1 GiB free, sales unsent or nothing pulled from central for 15 minutes; `unavailable`, 503: its database unreachable, silent for 2 s, or refusing writes), role, version, node number and database of this node, and `checks` of the database, the data folder’s disk and, on a paired store, the sync link. No credential; writes nothing while the node is healthy.' },
  'POST /oauth/access_token': { section: 'Node', summary: 'Get an access token', description: 'The client_credentials grant: a bearer token for the resource-style calls of the client\'s program.' },
};

/** The entry of a route (`/currencies/:id` is looked up as `/currencies/{id}`). */
export function operationDoc(method: string, url: string): OperationDoc | undefined {
  return OPERATION_DOCS[`${method.toUpperCase()} ${url.replace(/:(\w+)/g, '{$1}')}`];
}
