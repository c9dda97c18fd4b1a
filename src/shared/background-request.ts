/**
 * A request a screen makes by itself (a list refreshing on a timer), not because someone did
 * something: the node serves it but does not count it as the staff member's activity, so an open
 * screen does not keep an unattended back-office session from its idle end.
 */
export const BACKGROUND_REQUEST_HEADER = 'punchcard-activity';
export const BACKGROUND_REQUEST_VALUE = 'background';
