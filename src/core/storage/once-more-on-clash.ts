import type { Dialect } from './dialect';
import { isUniqueViolation } from './errors';

/**
 * Runs a command, and once more when PostgreSQL refused one of its writes on a unique key. Two
 * requests at once (a double scan, two tills, a double tap on sign-up) can both read that nothing
 * holds a value (an open session, a membership, a customer, an email, a metadata field) and both
 * write it; the second waits for the first on the key and then fails. Run again, it reads what the
 * first wrote and answers as it would have (that session, 409 email_taken, the field shared). SQLite
 * runs one writer at a time, so there a clash is the data's and running again would only repeat it.
 */
export async function onceMoreOnClash<T>(dialect: Dialect, command: () => Promise<T>): Promise<T> {
  try {
    return await command();
  } catch (error) {
    if (dialect !== 'postgres' || !isUniqueViolation(error)) throw error;
    return command();
  }
}
