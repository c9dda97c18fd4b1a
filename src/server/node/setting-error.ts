/**
 * A setting the operator gave (a flag, an environment variable, the data folder's record) that the
 * node cannot start or work with: the command line prints its message as one line and exits 1.
 */
export class SettingError extends Error {
  override name = 'SettingError';
}

export function isSettingError(error: unknown): error is SettingError {
  return error instanceof SettingError;
}
