import { hash, verify } from '@node-rs/argon2';
import { ServiceError } from '../../shared/errors';

export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 128;

/**
 * argon2id (the library's default: 19 MiB, 2 passes), PHC string, of the password composed (NFC):
 * `é` comes as U+00E9 from one keyboard and as `e` + U+0301 from another, and a customer signs up
 * on one phone and logs in on the other.
 */
export async function hashPassword(password: string, field = 'password'): Promise<string> {
  if (password.length < PASSWORD_MIN || password.length > PASSWORD_MAX) throw new ServiceError('weak_password', undefined, field);
  return hash(password.normalize('NFC'));
}

let dummyHash: Promise<string> | undefined;

/**
 * Checks a password. With no hash (unknown email, guest account) it still spends the time of a real
 * check, so response times do not tell which emails have accounts.
 */
export async function passwordMatches(passwordHash: string | null, password: string): Promise<boolean> {
  if (!passwordHash) {
    dummyHash ??= hash('punchcard-timing-equaliser');
    await verify(await dummyHash, password).catch(() => false);
    return false;
  }
  const composed = password.normalize('NFC');
  if (await verifies(passwordHash, composed)) return true;
  // A hash made before passwords were composed holds the text as it was typed then.
  return composed !== password && verifies(passwordHash, password);
}

async function verifies(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}
