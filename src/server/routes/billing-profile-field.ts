import { isServiceError, ServiceError } from '../../shared/errors';

/** The two names a body gives a billing profile number: the contract's text and the reload call's field. */
export type ProfileField = 'user_billingProfile_id' | 'user_billingprofile';

/**
 * The profile number of a body and the name it came under (`user_billingProfile_id` is read first,
 * as before). Missing, it is refused under `expected`: the name the route's contract uses.
 */
export function profileNumberOf(body: { user_billingProfile_id?: number | undefined; user_billingprofile?: number | undefined }, expected: ProfileField): { id: number; field: ProfileField } {
  if (body.user_billingProfile_id !== undefined) return { id: body.user_billingProfile_id, field: 'user_billingProfile_id' };
  if (body.user_billingprofile !== undefined) return { id: body.user_billingprofile, field: 'user_billingprofile' };
  throw new ServiceError('validation_failed', `${expected} is required.`, expected);
}

/**
 * `call`, with an unknown profile (404 billing_profile_not_found) naming the field the request
 * sent the number in: the use cases name the contract's `user_billingProfile_id`, which a reload
 * or auto-reload request never carries.
 */
export async function namingProfileField<T>(field: string, call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (error) {
    if (isServiceError(error) && error.code === 'billing_profile_not_found' && error.field !== field) throw new ServiceError(error.code, error.message, field);
    throw error;
  }
}
