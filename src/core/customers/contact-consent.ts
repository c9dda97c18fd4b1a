/** What a member agreed to be contacted by. */
export interface ContactChannels {
  email: boolean;
  sms: boolean;
}

/** The interface's contact_consent (0 none, 1 email, 2 SMS, 3 both) as the two channels it allows. */
export function contactChannels(consent: number): ContactChannels {
  return { email: (consent & 1) !== 0, sms: (consent & 2) !== 0 };
}
